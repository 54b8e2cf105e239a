"""The report's runs of the three tests of anonymisation (``report(anonymity=...)``): the
arguments checked before any data is read, then singling out, linkability and anonymeter's
inference attack per synthesis and the exact matches of every synthesis on the report's
registered inputs. The section's content is shaped by :mod:`.sections.anonymity`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..anonymity.inference import InferenceOptions, InferenceResult, inference_on
from ..anonymity.linkability import (
    MAX_SIDE,
    LinkabilityOptions,
    LinkabilityResult,
    linkability_on,
    needs_gower,
)
from ..anonymity.linkability_gower import columns_of
from ..anonymity.matches import MatchesOptions, exact_matches_on
from ..anonymity.singling_out import SinglingOutOptions, needs_half_lines, singling_out_on
from ..core.inputs import Inputs
from ..core.spec import column_names
from ..engines.base import Registered
from ..errors import InputError, did_you_mean
from .sections.anonymity import Tested

ARGUMENTS = ("columns", "n_cols", "aux_cols", "secrets", "inference_aux_cols")


def check(anonymity: Any, keys: Sequence[str]) -> dict[str, Any] | None:
    """The tests' arguments (True: the defaults; a mapping of ``columns``, ``n_cols``,
    ``aux_cols``, ``secrets``, ``inference_aux_cols``), checked before any data is read; None
    when not asked. ``keys``: the report's, inference's default auxiliary columns."""
    if anonymity is None or anonymity is False:
        return None
    if anonymity is not True and not isinstance(anonymity, Mapping):
        raise InputError(
            f"anonymity: expected True or a mapping of {', '.join(ARGUMENTS)}, got {anonymity!r}"
        )
    args = {} if anonymity is True else dict(anonymity)
    problems = [
        f"anonymity: {name!r} is not one of {', '.join(ARGUMENTS)}"
        f"{did_you_mean(str(name), ARGUMENTS)}"
        for name in args
        if name not in ARGUMENTS
    ]
    if problems:
        raise InputError(problems)
    SinglingOutOptions(args.get("columns"), "multivariate", args.get("n_cols", 3))
    if args.get("aux_cols") is not None:
        LinkabilityOptions(args["aux_cols"])
    problems = []
    if args.get("secrets") in ([], ()):  # no inference attack
        args["secrets"] = []
    for name in ("secrets", "inference_aux_cols"):
        if args.get(name):
            args[name] = column_names(name, args[name], problems)
    if problems:
        raise InputError(problems)
    aux = args.get("inference_aux_cols") or list(keys)
    for secret in args.get("secrets") or ():  # the targets, when not named: never keys
        InferenceOptions(aux, secret)
    return args


def run(
    inputs: Inputs,
    control: Registered | None,
    args: dict[str, Any],
    keys: Sequence[str],
    targets: Sequence[str],
    step: Callable[[str], None],
) -> Tested:
    """Singling out (multivariate, ``n_cols`` columns; default 3) over ``columns`` (default:
    the keys and the targets), linkability with ``aux_cols`` (default: A the keys, B the
    targets, when each side has at most 10 columns), inference of each of ``secrets``
    (default: the targets) from ``inference_aux_cols`` (default: the keys) and the exact
    matches over ``columns``, each synthesis against the original (and the control where its
    size allows; every size for linkability and inference)."""
    columns = list(args.get("columns") or [*keys, *targets])
    n_cols = min(int(args.get("n_cols", 3)), len(columns))
    aux = args.get("aux_cols")
    notes = []
    if aux is None and 0 < len(targets) <= MAX_SIDE and len(keys) <= MAX_SIDE:
        aux = (list(keys), list(targets))
    elif aux is None:
        notes.append(
            f"Linkability was not run: by default A is the keys and B the targets, at most "
            f"{MAX_SIDE} columns a side; give aux_cols=(A, B) (--link-a, --link-b)."
        )
    original, syntheses = inputs.sources[0], inputs.sources[1:]
    same_size = control is not None and control.n_rows == original.n_rows
    if control is not None and not same_size:
        notes.append(
            "Singling out was run without the control: it has "
            f"{control.n_rows:,} records and the original {original.n_rows:,} (an exact "
            "control rate needs the same size); linkability and the matches use it."
        )
    step("the three tests of anonymisation")
    singled = []
    linked: list[LinkabilityResult] | None = [] if aux is not None else None
    singling_out = SinglingOutOptions(columns, "multivariate", n_cols)
    linking = LinkabilityOptions(aux) if aux is not None else None
    half_lines = gower = False  # how the numbers were read, for the section's words
    for syn in syntheses:
        with_control = [control] if same_size and control is not None else []
        on = Inputs(inputs.engine, [original, syn, *with_control])
        singled.append(singling_out_on(on, singling_out))
        half_lines = half_lines or needs_half_lines(on, singling_out)
        if linked is not None and linking is not None:
            every = [control] if control is not None else []
            on = Inputs(inputs.engine, [original, syn, *every])
            linked.append(linkability_on(on, linking))
            gower = gower or needs_gower(columns_of(on, linking), linking)
    every = [control] if control is not None else []
    infer_from = list(args.get("inference_aux_cols") or keys)
    secrets = args.get("secrets")
    if secrets is None:  # the targets the attacker does not know
        secrets = [t for t in targets if t not in infer_from]
        if len(secrets) < len(targets):
            notes.append(
                "Inference did not guess the targets among its auxiliary columns: "
                + ", ".join(t for t in targets if t in infer_from)
                + "."
            )
    inferred = _inference(inputs, every, infer_from, secrets)
    on = Inputs(inputs.engine, [original, *syntheses, *every])
    matches = exact_matches_on(on, MatchesOptions(columns), len(syntheses))
    return Tested(
        singled,
        linked,
        matches,
        control is not None,
        notes,
        half_lines,
        gower,
        inferred,
        infer_from,
    )


def _inference(
    inputs: Inputs, every: list[Registered], aux: list[str], secrets: Sequence[str]
) -> list[list[InferenceResult]]:
    """anonymeter's inference attack, per synthesis each secret."""
    original, syntheses = inputs.sources[0], inputs.sources[1:]
    results = []
    for syn in syntheses:
        on = Inputs(inputs.engine, [original, syn, *every])
        results.append([inference_on(on, InferenceOptions(aux, s)) for s in secrets])
    return results
