"""inference(): anonymeter's inference attack, exact over every original record and every tie.

The attacker knows a target's auxiliary columns and guesses its secret from the synthetic
record closest to it on them, under anonymeter 1.1's Gower distance (numeric columns over
their range in both data sets, L1; categories 0/1): ``InferenceEvaluator`` with its default
``KNNInferencePredictor`` (``src/anonymeter/evaluators/inference_evaluator.py``,
``neighbors/mixed_types_kneighbors.py``). anonymeter attacks 500 sampled targets and breaks
ties by the order of its sort; here every target is attacked and every tied neighbour counts,
one each (identical synthetic records too): the expected success is the share of the tied
neighbours whose secret is right, with its bounds (every tied neighbour right, some right).

The records are grouped into profiles (distinct values of the auxiliary columns and the
secret, with their count) and the neighbours found by the exact tied search of
``distance.py`` (:class:`distance.Tied`); the SQL is ``sql_templates/anonymity/inference*.sql.j2``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import MISSING, dataclass
from typing import Any

import pyarrow as pa

from ..core.inputs import Inputs, open_inputs
from ..core.options import Options, option
from ..core.results import AsData, plain
from ..core.spec import column_names
from ..errors import InputError, SchemaError
from ..sql.templates import render
from .common import (
    MAX_PAIRS,
    categorical_option,
    max_pairs_option,
    max_pairs_problems,
    options_for,
    register_control,
    reserved_names,
    schema_check,
)
from .distance import (
    Tied,
    anonymeter_order,
    distance_columns,
    nearest,
    prepare,
    profiles,
)
from .stats import CONFIDENCE_LEVEL, AttackRates, Rates, interval, number, rates

PROFILES = "__disco_inf_profiles"
ALL = "__disco_inf_all"
COUNTS = "__disco_inf_counts"
NEAR = "__disco_inf_near_"
ALL_TEMPLATE = "anonymity/inference_all.sql.j2"
COUNTS_TEMPLATE = "anonymity/inference.sql.j2"
SYNTHESIS, CONTROL = 1, 2
# anonymeter's evaluate_inference_guesses: a numeric guess g is right when
# |g - s| / (g + 1e-12) <= tolerance
EPSILON = 1e-12
TOLERANCE = 0.05
# the regression's counts over every synthetic record: the band of guesses that are right is
# computed in doubles, so values within this relative margin of its ends are checked one by one
MARGIN = 1e-9
MIN_TOLERANCE = 1e-6  # the band of right guesses stays wider than its margins
TOTALS = [
    ("records", pa.float64()),
    ("successes", pa.float64()),
    ("successes_min", pa.float64()),
    ("successes_max", pa.float64()),
    ("baseline", pa.float64()),
    ("control_records", pa.float64()),
    ("control_successes", pa.float64()),
    ("control_successes_min", pa.float64()),
    ("control_successes_max", pa.float64()),
]


@dataclass(frozen=True)
class InferenceOptions(Options):
    """:func:`inference`'s options, checked when built (before any data is read)."""

    FAMILY = "inference"

    aux_cols: list[str] = option(
        MISSING, "the columns the attacker knows, comma-separated", kind="list", metavar="A,B,..."
    )
    secret: str = option(MISSING, "the column the attacker guesses", metavar="COLUMN")
    regression: bool | None = option(
        None,
        "compare a numeric secret within the tolerance of the guess (default: yes for a "
        "numeric secret, as anonymeter's regression=True); no: exactly",
        kind="bool",
    )
    tolerance: float = option(
        TOLERANCE,
        "a numeric guess g is right when |g - secret| <= tolerance * |g + 1e-12| (default 0.05)",
        kind="float",
        metavar="T",
    )
    as_anonymeter: bool = option(
        False,
        "anonymeter 1.1's own comparison, |g - secret| / (g + 1e-12) <= tolerance, under "
        "which every negative guess is right",
        kind="bool",
    )
    categorical: list[str] | None = categorical_option("numeric auxiliary columns")
    max_pairs: int = max_pairs_option("a search round")

    def __post_init__(self) -> None:
        problems: list[str] = []
        aux = column_names("aux_cols", self.aux_cols, problems)
        if self.aux_cols is None:
            problems.append("aux_cols: name the columns the attacker knows, e.g. ['age', 'sex']")
        reserved_names("aux_cols", aux, problems)
        secret = self.secret
        if not isinstance(secret, str) or not secret:
            problems.append(f"secret: the name of one column, got {secret!r}")
        elif aux and secret in aux:
            problems.append(
                f"secret: {secret!r} is among aux_cols; the attacker guesses a column it does "
                "not know"
            )
        cats = (
            None
            if self.categorical is None
            else column_names("categorical", self.categorical, problems)
        )
        if aux and cats:
            missing = [c for c in cats if c not in aux]
            if missing:
                problems.append(f"categorical: {missing!r} are not among aux_cols {aux!r}")
        if self.regression is not None and not isinstance(self.regression, bool):
            problems.append(f"regression: True, False or None, got {self.regression!r}")
        tol = self.tolerance
        if (
            isinstance(tol, bool)
            or not isinstance(tol, int | float)
            or not MIN_TOLERANCE <= tol < 1
        ):
            problems.append(
                f"tolerance: a share from {MIN_TOLERANCE:g} to below 1, got {tol!r} "
                "(regression=False compares exactly)"
            )
        if not isinstance(self.as_anonymeter, bool):
            problems.append(f"as_anonymeter: True or False, got {self.as_anonymeter!r}")
        problems += max_pairs_problems(self.max_pairs)
        if problems:
            raise InputError(problems)
        self.set("aux_cols", aux)
        self.set("tolerance", float(tol))

    @property
    def names(self) -> list[str]:
        """The auxiliary columns, then the secret."""
        return [*self.aux_cols, self.secret]


@dataclass(frozen=True)
class InferenceResult(AttackRates, AsData):
    """anonymeter's inference attack on every original (and control) record.

    For a target t, N(t) is the set of synthetic records closest to it on ``aux_cols``
    (anonymeter's Gower distance, every tie; a target whose distance to every synthetic
    record is NaN, a number against a missing value, has them all). The attack guesses the
    secret of one of them: ``rate`` = mean over the targets of the share of N(t) whose secret
    is right (the success of a tie broken at random), ``rate_min`` = the share of targets for
    which every record of N(t) is right, ``rate_max`` = for which some is: anonymeter's attack
    on every record, whatever its sort does with ties, succeeds at a rate between them.

    A guess g is right for a secret s when both are missing, or: categorical (and numbers
    with ``regression=False``) g = s; numbers with ``regression`` |g - s| <= tolerance *
    |g + 1e-12| (anonymeter's |g - s| / (g + 1e-12) <= 0.05, whose intent; with
    ``as_anonymeter`` its own formula, under which a negative guess is always right).

    ``baseline_rate``: anonymeter's trivial attacker (the secret of a random synthetic
    record), its expectation: mean over targets of the share of all synthetic records whose
    secret is right. With a control: ``control_rate`` (and its bounds), ``risk`` = (rate -
    control_rate) / (1 - control_rate) and ``ci``, anonymeter's interval of its ``risk()``
    (Wilson, over the targets); ``rate_ci``: the rate's interval.
    """

    aux_cols: tuple[str, ...]
    secret: str
    regression: bool
    records: int
    successes: float
    rate_min: float
    rate_max: float
    baseline_rate: float
    rates: Rates
    control_records: int | None = None
    control_successes: float | None = None
    control_rate_min: float | None = None
    control_rate_max: float | None = None
    confidence_level: float = CONFIDENCE_LEVEL

    def summary(self) -> dict[str, Any]:
        """The numbers of the attack as plain data (NaN is None)."""
        data: dict[str, Any] = plain(
            {
                "aux_cols": list(self.aux_cols),
                "secret": self.secret,
                "regression": self.regression,
                "records": self.records,
                "successes": self.successes,
                "rate": self.rate,
                "rate_min": self.rate_min,
                "rate_max": self.rate_max,
                "baseline_rate": self.baseline_rate,
                "control_records": self.control_records,
                "control_successes": self.control_successes,
                "control_rate": self.control_rate,
                "control_rate_min": self.control_rate_min,
                "control_rate_max": self.control_rate_max,
                "risk": self.risk,
                "ci": list(self.ci),
                "rate_ci": list(self.rate_ci),
                "confidence_level": self.confidence_level,
            }
        )
        return data

    def to_dict(self) -> dict[str, Any]:
        """:meth:`summary` as plain data."""
        return self.summary()

    def html_parts(self) -> tuple[str, list[tuple[str, pa.Table]], list[str]]:
        title = f"inference(): {self.secret} from {', '.join(self.aux_cols)}"
        numbers = {k: v for k, v in self.summary().items() if k not in ("aux_cols", "secret")}
        numbers["ci"] = interval(self.ci)
        numbers["rate_ci"] = interval(self.rate_ci)
        return title, [("", pa.Table.from_pylist([numbers]))], []

    def __str__(self) -> str:
        how = "within the tolerance" if self.regression else "exactly"
        lines = [
            f"Inference of {self.secret} ({how}) from {', '.join(self.aux_cols)}",
            f"records: {self.records} (original records attacked)",
            f"rate: {number(self.rate)} (ties: {number(self.rate_min)} to "
            f"{number(self.rate_max)}), 95% CI {interval(self.rate_ci)}",
            f"baseline rate: {number(self.baseline_rate)} (a random synthetic record's secret)",
        ]
        if self.control_records is not None:
            lines += [
                f"control rate: {number(self.control_rate)} (ties: "
                f"{number(self.control_rate_min)} to {number(self.control_rate_max)}) over "
                f"{self.control_records} records",
                f"risk: {number(self.risk)}, 95% CI {interval(self.ci)}",
            ]
        return "\n".join(lines)


# --- the call -------------------------------------------------------------------------------------


def inference(
    original: Any,
    synthetic: Any,
    aux_cols: Sequence[str] | str,
    secret: str,
    control: Any = None,
    *,
    regression: bool | None = None,
    tolerance: float = TOLERANCE,
    as_anonymeter: bool = False,
    categorical: Sequence[str] | str | None = None,
    max_pairs: int = MAX_PAIRS,
    engine: Any = None,
    threads: int | None = None,
) -> InferenceResult:
    """The inference risk of a synthesis (anonymeter's ``InferenceEvaluator`` with its
    nearest-neighbour guess), exact over every original record and every tie.

    For a target t with auxiliary values a(t) and secret s(t): d(t, y) = sum over aux_cols of
    |a_j(t) / R_j - a_j(y) / R_j| (numeric; R_j the range over the original and the synthesis
    together, 1 where it is 0; NaN for a number against a missing value, 1 for two missing)
    or [a_j(t) != a_j(y)] (categorical, missing equal to missing), in anonymeter's order;
    N(t) = the synthetic records y at the smallest finite d(t, y) (all of them when none is
    finite). rate = (1/n) sum_t |{y in N(t): right(s(y), s(t))}| / |N(t)|; rate_min, rate_max
    count the targets where every, some y in N(t) is right. With a control: the same over the
    control's records (ranges over the synthesis and the control), risk = (rate -
    control_rate) / (1 - control_rate).

    Args:
        original: the data the synthesis was made from (every record is attacked).
        synthetic: one synthesis.
        aux_cols: the columns the attacker knows.
        secret: the column it guesses (not among aux_cols).
        control: a holdout of the original that the synthesis was not made from (any size).
        regression: compare a numeric secret within ``tolerance`` of the guess (default for a
            numeric secret); False: exactly.
        tolerance: the relative tolerance of a numeric guess (anonymeter's 0.05).
        as_anonymeter: anonymeter 1.1's formula |g - s| / (g + 1e-12) <= tolerance (a
            negative guess is always right) instead of its intent, |g + 1e-12| below.
        categorical: numeric auxiliary columns compared as categories.
        max_pairs: the search's bound on one round's pairs of records.
        engine, threads: where the SQL runs, as for every discosql measure.

    Returns:
        An :class:`InferenceResult`: rate, rate_min, rate_max, baseline_rate; with a control
        control_rate, risk and ci.
    """
    options = options_for(
        InferenceOptions,
        synthetic,
        aux_cols=[aux_cols] if isinstance(aux_cols, str) else aux_cols,
        secret=secret,
        regression=regression,
        tolerance=tolerance,
        as_anonymeter=as_anonymeter,
        categorical=[categorical] if isinstance(categorical, str) else categorical,
        max_pairs=max_pairs,
    )
    with open_inputs(
        engine, threads, original, synthetic, check=schema_check(options.names)
    ) as inputs:
        if control is not None:
            reg = register_control(inputs, control, options.names)
            inputs = Inputs(inputs.engine, [*inputs.sources, reg])
        return inference_on(inputs, options)


def inference_on(inputs: Inputs, options: InferenceOptions) -> InferenceResult:
    """:func:`inference` on registered inputs: the original, the synthesis and optionally
    the control (data set 2)."""
    engine = inputs.engine
    sources = list(inputs.sources)
    control = len(sources) > CONTROL
    columns = distance_columns(sources, options.names, options.categorical or [])
    aux, secret = columns[:-1], columns[-1]
    regression = secret.numeric if options.regression is None else options.regression
    if regression and not secret.numeric:
        raise SchemaError(
            [
                f"regression: the secret {options.secret!r} is not numeric in the data; "
                "give regression=False to compare it exactly"
            ]
        )
    if sources[SYNTHESIS].n_rows == 0:
        raise InputError("synthetic: has no records; the attack guesses from synthetic records")
    joint = [(-1, (0, SYNTHESIS))] + ([(-2, (SYNTHESIS, CONTROL))] if control else [])
    with engine.work() as work:
        prepared = prepare(work, sources, columns, joint)
        rows = profiles(work, PROFILES, (*aux, secret), aux)
        order = anonymeter_order(aux)
        ctx = {
            "profiles": PROFILES,
            "secret": {"pos": secret.pos, "numeric": secret.numeric},
            "regression": regression,
            "as_anonymeter": options.as_anonymeter,
        }
        params = {"tol": options.tolerance, "eps": EPSILON, "margin": MARGIN}
        targets = []
        for q, g in [(0, -1), *([(CONTROL, -2)] if control else [])]:
            table = f"{NEAR}{q}"
            labels = ("original" if q == 0 else "control", "synthetic")
            tied = Tied(PROFILES, rows, order)
            nearest(
                work,
                prepared,
                q,
                SYNTHESIS,
                table,
                max_pairs=options.max_pairs,
                labels=labels,
                g_src=g,
                family="inference",
                tied=tied,
            )
            targets.append({"src": q, "near": table})
        sql = render(ALL_TEMPLATE, engine.dialect, targets=targets, **ctx)
        work.create(ALL, sql, params, ALL_TEMPLATE)
        sql = render(
            COUNTS_TEMPLATE, engine.dialect, part="counts", targets=targets, all=ALL, **ctx
        )
        work.create(COUNTS, sql, params, COUNTS_TEMPLATE)
        counts = render(
            COUNTS_TEMPLATE, engine.dialect, part="totals", counts=COUNTS, control=control
        )
        summary = rates(
            engine,
            counts,
            TOTALS,
            ("records", "successes"),
            ("control_records", "control_successes") if control else None,
        )
    assert summary is not None  # a run on an engine reads its one row
    return _result(summary, options, regression, control)


def _result(
    row: dict[str, Any], options: InferenceOptions, regression: bool, control: bool
) -> InferenceResult:
    """The result from the summary's row (counts, then rates.sql.j2's)."""

    def share(k: str, n: str) -> float:
        total = row[n] or 0.0
        return float(row[k]) / total if total else float("nan")

    n = int(row["records"] or 0)
    return InferenceResult(
        aux_cols=tuple(options.aux_cols),
        secret=options.secret,
        regression=regression,
        records=n,
        successes=float(row["successes"] or 0.0),
        rate_min=share("successes_min", "records"),
        rate_max=share("successes_max", "records"),
        baseline_rate=share("baseline", "records"),
        rates=Rates.of(row, control),
        control_records=int(row["control_records"] or 0) if control else None,
        control_successes=float(row["control_successes"] or 0.0) if control else None,
        control_rate_min=share("control_successes_min", "control_records") if control else None,
        control_rate_max=share("control_successes_max", "control_records") if control else None,
    )
