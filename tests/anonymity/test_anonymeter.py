"""discosql's exact singling-out, linkability and inference rates against anonymeter 1.1
itself, run beside it: the bundled SD2011 (its 9 columns as text), the Adult fixture's 9
categorical columns and, for linkability and inference, its numeric ones (tests/data/adult).
Run by .ci/anonymeter, in an environment of its own (anonymeter pins numpy below 2); the
``anonymeter`` fixture marks these tests.

* Multivariate singling out samples distinct queries uniformly (a random synthetic record and
  random columns, kept when they single out), so its success rate estimates discosql's exact
  rate: anonymeter's 95% interval (fixed seed, 2,000 queries) contains it, main and control.
* Univariate singling out asked for exactly as many queries as exist lists every one: its
  counts equal discosql's.
* Linkability with every record attacked (n_attacks=None) breaks ties by its search: its
  successes lie between discosql's linked_unique and linked, on categorical columns and
  under its Gower distance on the Adult fixture's numeric ones, with one and three
  neighbours.
* Inference on every record (n_attacks = all) guesses from one nearest synthetic record:
  its successes lie between discosql's rate_min and rate_max, main and control.

anonymeter deduplicates each data set before singling out (singling_out_evaluator.py,
``SinglingOutEvaluator.__init__``: ``unique(maintain_order=True)``), so the singling-out
comparisons give discosql the distinct records, and a control of the original's distinct
size (anonymeter rescales the control's successes otherwise).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import discosql as ds

DATA = Path(ds.__file__).parent / "data"
ADULT = Path(__file__).parent.parent / "data" / "adult"
SEED = 20261127
ATTACKS = 2000
# anonymeter's own warning when its random-guess baseline does as well as the attack (it
# warns, and still reports the counts compared here)
pytestmark = pytest.mark.filterwarnings(
    "ignore:Attack is as good or worse as baseline model:UserWarning"
)


def _as_text(t: pa.Table, columns: list[str]) -> Any:
    """The columns as text (numbers too: each value a category), in pandas."""
    frame = t.select(columns).to_pandas()
    for c in columns:
        frame[c] = [None if v is None or v != v else str(v) for v in frame[c]]
    return frame.astype(object)


def _sd2011() -> tuple[Any, Any, Any]:
    cols = pq.read_table(DATA / "sd2011.parquet").column_names
    return tuple(
        _as_text(pq.read_table(DATA / f"{n}.parquet"), cols) for n in ("sd2011", "syn_1", "syn_2")
    )  # type: ignore[return-value]


def _adult() -> tuple[Any, Any, Any]:
    t = pq.read_table(ADULT / "original.parquet")
    cols = [f.name for f in t.schema if pa.types.is_string(f.type)]
    names = ("original", "syn_1", "syn_2")
    return tuple(_as_text(pq.read_table(ADULT / f"{n}.parquet"), cols) for n in names)  # type: ignore[return-value]


DATA_SETS = {"sd2011": _sd2011, "adult": _adult}


def _distinct(original: Any, synthetic: Any, control: Any) -> tuple[Any, Any, Any]:
    """What anonymeter's singling out sees: each data set's distinct records; the original
    and the control cut to one size (the smaller's)."""
    o = original.drop_duplicates(ignore_index=True)
    s = synthetic.drop_duplicates(ignore_index=True)
    c = control.drop_duplicates(ignore_index=True)
    n = min(len(o), len(c))
    return o.iloc[:n].reset_index(drop=True), s, c.iloc[:n].reset_index(drop=True)


def _arrow(frame: Any) -> pa.Table:
    return pa.Table.from_pandas(frame, preserve_index=False).cast(
        pa.schema([(c, pa.string()) for c in frame.columns])
    )


def _inside(value: float, interval: tuple[float, float]) -> bool:
    return interval[0] <= value <= interval[1]


@pytest.mark.parametrize("data", list(DATA_SETS))
def test_multivariate_singling_out_is_inside_anonymeters_interval(
    anonymeter: Any, data: str
) -> None:
    from anonymeter.evaluators import SinglingOutEvaluator

    o, s, c = _distinct(*DATA_SETS[data]())
    mine = ds.singling_out(_arrow(o), _arrow(s), n_cols=3, control=_arrow(c))
    evaluator = SinglingOutEvaluator(o, s, n_attacks=ATTACKS, n_cols=3, control=c, seed=SEED)
    res = evaluator.evaluate(mode="multivariate").results()
    assert res.n_attacks_ori == ATTACKS
    attack, control = res.attack_rate, res.control_rate
    assert _inside(mine.rate, (attack.value - attack.error, attack.value + attack.error))
    assert control is not None
    assert mine.control_rate is not None
    assert _inside(
        mine.control_rate, (control.value - control.error, control.value + control.error)
    )
    risk = evaluator.risk()
    assert mine.risk is not None
    assert _inside(mine.risk, risk.ci)


@pytest.mark.parametrize("data", list(DATA_SETS))
def test_univariate_singling_out_counts_every_query_as_anonymeter(
    anonymeter: Any, data: str
) -> None:
    from anonymeter.evaluators import SinglingOutEvaluator

    o, s, c = _distinct(*DATA_SETS[data]())
    mine = ds.singling_out(_arrow(o), _arrow(s), mode="univariate", control=_arrow(c))
    evaluator = SinglingOutEvaluator(o, s, n_attacks=mine.queries, control=c, seed=SEED)
    res = evaluator.evaluate(mode="univariate").results()
    assert len(evaluator.queries()) == res.n_success  # the successful ones
    assert (res.n_attacks_ori, res.n_success, res.n_control) == (
        mine.queries,
        mine.successes,
        mine.control_successes,
    )


SIDES = {
    "sd2011": (["sex", "age", "region", "placesize"], ["marital", "ls", "workab", "depress"]),
    "adult": (
        ["workclass", "education", "marital.status", "sex"],
        ["occupation", "race", "native.country", "relationship"],
    ),
}


@pytest.mark.parametrize("data", list(DATA_SETS))
def test_linkability_lies_between_the_exact_bounds(anonymeter: Any, data: str) -> None:
    from anonymeter.evaluators import LinkabilityEvaluator

    o, s, c = DATA_SETS[data]()
    c = c.iloc[: len(o)].reset_index(drop=True)
    a, b = SIDES[data]
    mine = ds.linkability(_arrow(o), _arrow(s), (a, b), control=_arrow(c))
    evaluator = LinkabilityEvaluator(o, s, aux_cols=(a, b), n_attacks=None, control=c)
    res = evaluator.evaluate(n_jobs=1).results()
    assert res.n_attacks_ori == len(o)
    assert mine.linked_unique <= res.n_success <= mine.linked
    assert mine.control_linked_unique is not None
    assert mine.control_linked is not None
    assert res.n_control is not None
    assert mine.control_linked_unique <= res.n_control <= mine.control_linked


INFERENCE = {  # secret: the attacker's columns (numeric and categorical)
    "income": ["age", "sex", "education", "capital.gain", "hours.per.week"],
    "hours.per.week": ["age", "sex", "occupation", "fnlwgt"],
    "race": ["age", "education.num", "native.country"],
}


@pytest.mark.parametrize("secret", list(INFERENCE))
def test_inference_lies_between_the_exact_bounds(anonymeter: Any, secret: str) -> None:
    """anonymeter's InferenceEvaluator on every record of the Adult fixture, numeric columns
    in the auxiliary set (its Gower distance) and a numeric secret (within 5% of the guess):
    its successes, main and control, lie between discosql's bounds over the ties, and its
    baseline near discosql's expectation of it."""
    from anonymeter.evaluators import InferenceEvaluator

    tables = [pq.read_table(ADULT / f"{n}.parquet") for n in ("original", "syn_1", "syn_2")]
    o, s, c = (t.to_pandas() for t in tables)
    aux = INFERENCE[secret]
    regression = secret == "hours.per.week"
    mine = ds.inference(
        tables[0],
        tables[1],
        aux,
        secret,
        control=tables[2],
        regression=regression,
        as_anonymeter=True,
    )
    evaluator = InferenceEvaluator(
        o, s, aux_cols=aux, secret=secret, regression=regression, n_attacks=len(o), control=c
    )
    res = evaluator.evaluate(n_jobs=1).results()
    n, nc = len(o), len(c)
    assert res.n_attacks_ori == n
    assert round(mine.rate_min * n) <= res.n_success <= round(mine.rate_max * n)
    assert mine.control_rate_min is not None
    assert mine.control_rate_max is not None
    assert res.n_control is not None
    assert round(mine.control_rate_min * nc) <= res.n_control <= round(mine.control_rate_max * nc)


@pytest.mark.parametrize("k", [1, 3])
def test_gower_linkability_lies_between_the_exact_bounds(anonymeter: Any, k: int) -> None:
    """anonymeter's LinkabilityEvaluator on every Adult record with numeric columns on both
    sides (its Gower distance) and k neighbours: its links, main and control, lie between
    discosql's linked_unique and linked."""
    from anonymeter.evaluators import LinkabilityEvaluator

    tables = [pq.read_table(ADULT / f"{n}.parquet") for n in ("original", "syn_1", "syn_2")]
    o, s, c = (t.to_pandas() for t in tables)
    a, b = ["age", "sex", "education", "hours.per.week"], ["fnlwgt", "race", "capital.gain"]
    mine = ds.linkability(tables[0], tables[1], (a, b), control=tables[2], n_neighbors=k)
    evaluator = LinkabilityEvaluator(
        o, s, aux_cols=(a, b), n_attacks=None, n_neighbors=k, control=c
    )
    res = evaluator.evaluate(n_jobs=1).results()
    assert res.n_attacks_ori == len(o)
    assert mine.linked_unique <= res.n_success <= mine.linked
    assert res.n_control is not None
    assert mine.control_linked_unique is not None
    assert mine.control_linked is not None
    assert mine.control_linked_unique <= res.n_control <= mine.control_linked


def test_half_line_singling_out_is_inside_anonymeters_interval(anonymeter: Any) -> None:
    """Multivariate singling out with the Adult fixture's numeric columns as anonymeter's
    half-lines (the default): anonymeter's 95% interval contains discosql's exact rate, main
    and control, on the distinct records it attacks. These 6 columns offer 770 queries in
    all: anonymeter is asked for half of them (asked for more than exist, it draws until
    its 10 million attempts run out)."""
    from anonymeter.evaluators import SinglingOutEvaluator

    cols = ["age", "education.num", "hours.per.week", "sex", "race", "workclass"]
    frames = [
        pq.read_table(ADULT / f"{n}.parquet").select(cols).to_pandas()
        for n in ("original", "syn_1", "syn_2")
    ]
    o, s, c = _distinct(*frames)
    arrow = [pa.Table.from_pandas(f, preserve_index=False) for f in (o, s, c)]
    mine = ds.singling_out(arrow[0], arrow[1], n_cols=3, control=arrow[2])
    assert mine.queries == 770
    n = mine.queries // 2
    evaluator = SinglingOutEvaluator(o, s, n_attacks=n, n_cols=3, control=c, seed=SEED)
    res = evaluator.evaluate(mode="multivariate").results()
    attack, control = res.attack_rate, res.control_rate
    assert _inside(mine.rate, (attack.value - attack.error, attack.value + attack.error))
    assert control is not None
    assert mine.control_rate is not None
    assert _inside(
        mine.control_rate, (control.value - control.error, control.value + control.error)
    )
