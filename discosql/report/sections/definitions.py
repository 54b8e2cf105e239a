"""What the report's measures are: the Definitions section (each measure's formula and source), the
measures a threshold may name (``DIRECTIONS``, ``RISK_THRESHOLDS``) and those it may not
(``ORIGINAL_SIDE``)."""

from __future__ import annotations

from ...sweep.key_sweep import MEASURES as SWEEP_MEASURES

# the measures of the original data alone, which no synthesis changes: a threshold on them
# judges nothing about a release (the measure to judge instead)
ORIGINAL_SIDE = {"UiO": "repU or UiOiS", "Dorig": "DiSCO", "CAPd": "DCAP", "baseCAPd": "DCAP"}


# the original's own risk (sdcMicro's measure_risk) a threshold may name with risk=True: its
# largest value (a percentage, or a probability) and what the report calls it
RISK_THRESHOLDS = {
    "global_risk_pct": (100.0, "global risk (%)"),
    "global_risk": (1.0, "global risk (a probability, 0 to 1)"),
}


# every measure a threshold may name (percent of records, lower is safer): synthpop's
# synthesis measures and CAP scores
DIRECTIONS = {
    m: "lower is safer"
    for m in (*SWEEP_MEASURES, "DCAP", "TCAP", "CAPs")
    if m not in ("max_denom", "mean_denom") and m not in ORIGINAL_SIDE
}


# defined in a report only when it has the section "The three tests of anonymisation"
OF_ANONYMITY = (
    "singling out rate",
    "linkability rate, rate_unique",
    "inference rate, rate_min, rate_max",
    "UEM, identical",
)
# defined only beside the section "Distance to the closest record"
OF_DISTANCE = ("DCR", "DCR share, DCROverfittingProtection", "membership AUC, TPR at FPR")

DEFINITIONS = (
    (
        "UiO",
        "100 · #{q : d'.q = 1} / N_d: original records unique on the keys",
        "Raab, Nowok & Dibben, Practical privacy metrics for synthetic data (synthpop)",
    ),
    ("UiS", "100 · #{q : s'.q = 1} / N_s: synthetic records unique on the keys", "ibid."),
    (
        "UiOiS",
        "100 · #{q : d'.q = 1, s.q > 0} / N_d: original uniques whose key is in the synthetic data",
        "ibid.",
    ),
    ("repU", "100 · #{q : d'.q = 1, s'.q = 1} / N_d: replicated uniques (unique in both)", "ibid."),
    (
        "Dorig",
        "100 · Σ d'_tq [p_d(t|q) = 1] / N_d: original records whose key alone discloses "
        "the target in the original data (the baseline an intruder has without the synthesis)",
        "ibid.",
    ),
    ("Dsyn", "100 · Σ s'_tq [p_s(t|q) = 1] / N_s: the same in the synthetic data", "ibid."),
    (
        "iS",
        "100 · Σ d'_tq [s.q > 0] / N_d: original records whose key is in the synthesis",
        "ibid.",
    ),
    ("DiS", "100 · Σ d'_tq [some p_s(t'|q) = 1] / N_d: key disclosive in the synthesis", "ibid."),
    (
        "DiSCO",
        "100 · Σ d'_tq [p_s(t|q) = 1] / N_d: disclosive in the synthesis and correct "
        "in the original",
        "ibid.",
    ),
    (
        "DiSDiO",
        "100 · Σ d'_tq [p_s(t|q) = 1, p_d(t|q) = 1] / N_d: DiSCO cells also disclosive "
        "in the original",
        "ibid.",
    ),
    (
        "max_denom, mean_denom",
        "the largest and the mean number of synthetic records in a DiSCO cell (s.q of the "
        "disclosive keys): a cell of one record discloses one person",
        "ibid.",
    ),
    (
        "baseCAPd",
        "100 · Σ_t (d_.t / N_d)²: the chance of guessing a record's target from its "
        "distribution alone (the baseline of the CAP scores)",
        "synthpop disclosure(): Taub et al., PSD 2018",
    ),
    ("CAPd", "100 · Σ d_tq · p_d(t|q) / N_d: the original's own correct attribution", "ibid."),
    (
        "CAPs",
        "100 · Σ s_tq · p_s(t|q) / N_s: the synthesis's own correct attribution (the "
        "synthetic records' CAPd)",
        "ibid.",
    ),
    (
        "DCAP",
        "100 · Σ d_tq · p_s(t|q) / N_d: correct attribution from the synthesis, unmatched "
        "records counting as 0 (= 100 (1 - CategoricalZeroCAP))",
        "ibid.; SDMetrics CategoricalZeroCAP",
    ),
    ("DCAP/iS", "100 · DCAP / iS: DCAP over the records whose key the synthesis holds", "ibid."),
    (
        "TCAP",
        "100 · DiSCO / iS: synthpop's TCAP (the code's; its 1.9-3 vignette calls this "
        "TCAP_alt), the disclosive share of the matched records",
        "synthpop disclosure() (code to 1.9-3)",
    ),
    (
        "TCAP_little",
        "100 · DiSCO / DiS: of the original records whose key the synthesis discloses (one "
        "target value there), the share it discloses correctly; NaN when no key is disclosive",
        "Little et al. 2022, 2025; synthpop 1.9-3 vignette (its TCAP)",
    ),
    (
        "DiSCO(τ)",
        "100 · #{original records with p_s(t|q) ≥ τ} / N_d: attribution at least τ certain; "
        "DiSCO(1) = DiSCO, and without exclusions the area under the curve is DCAP",
        "synthpop 1.9-3 vignette §3.3.1 (announced); discosql",
    ),
    (
        "fk, Fk",
        "fk: the original records sharing a record's key combination; Fk: their sampling "
        "weights' sum (the population it stands for; fk without a weight)",
        "sdcMicro freqCalc; Templ, Statistical Disclosure Control for Microdata (2017)",
    ),
    (
        "k-anonymity violations",
        "records with fk < k: fewer than k records share their key combination",
        "Samarati & Sweeney 1998; sdcMicro measure_risk",
    ),
    (
        "individual risk",
        "the probability that a record's key match is correct: 1/fk without weights, the "
        "negative binomial estimate from fk and Fk with them",
        "Benedetti & Franconi 1998; sdcMicro measure_risk",
    ),
    (
        "expected re-identifications, global risk",
        "the sum of the individual risks (records), and that sum as a share of the records "
        "(global risk, %; global_risk as a probability)",
        "sdcMicro measure_risk",
    ),
    (
        "MSU",
        "minimal sample unique: a set of a record's key values no other record shares, of "
        "which no subset is unique",
        "Elliot et al., SUDA (2002); sdcMicro suda2",
    ),
    (
        "DIS-SUDA",
        "the probability that a record's match on its MSUs is correct, for the given sampling "
        "fraction (0.01: a 1 % sample); a key's contribution is its share of all SUDA scores",
        "Elliot, Manning & Ford (2002); sdcMicro suda2",
    ),
    (
        "CategoricalCAP",
        "1 - Σ_{q: s_q>0} o_qt·s_qt/s_q / Σ_{q: s_q>0} o_qt (1 = safe)",
        "SDMetrics CategoricalCAP; Taub et al., PSD 2018",
    ),
    (
        "CategoricalZeroCAP",
        "1 - Σ_{q: s_q>0} o_qt·s_qt/s_q / N (1 = safe; unmatched records score 0)",
        "SDMetrics CategoricalZeroCAP",
    ),
    (
        "CategoricalGeneralizedCAP",
        "1 - mean over original records of the share of the nearest "
        "synthetic keys (Hamming distance) with the record's target (1 = safe)",
        "SDMetrics CategoricalGeneralizedCAP; Hittmeir, Ekelhart & Mayer, CODASPY 2020",
    ),
    (
        "Taub TCAP",
        "mean of o_qt/o_q over synthetic records with WEAP = s_qt/s_q ≥ τ (higher = riskier)",
        "Taub, Elliot, Pampaka & Smith, PSD 2018",
    ),
    (
        "excess risk",
        "(risk - control risk) / (1 - control risk): the risk beyond what a "
        "control set (records not used to fit the synthesiser) gives",
        "Baillargeon & Charest, A closer look at the CAP risk measure",
    ),
    (
        "singling out rate",
        "successes / queries: of the predicates on n_cols columns that exactly one synthetic "
        "record satisfies, the share that exactly one original record satisfies (every query; "
        "a number's predicate a half-line: >= v above the synthesis' median, <= v at or below)",
        "anonymeter SinglingOutEvaluator (Giomi et al., PETS 2023), exact",
    ),
    (
        "linkability rate, rate_unique",
        "the share of original records whose closest synthetic records on A and on B (Gower: "
        "|Δ| / range for a number, 0/1 for a category; all ties) share one; _unique: one "
        "closest a side, the same",
        "anonymeter LinkabilityEvaluator (n_neighbors = 1), exact",
    ),
    (
        "inference rate, rate_min, rate_max",
        "of the original records, the expected share whose secret the closest synthetic "
        "records on the auxiliary columns (Gower, all ties, a tie broken at random) guess "
        "right: a number within 5% of the guess, a category exactly; _min: every tied record "
        "right, _max: some; baseline: a random synthetic record's secret",
        "anonymeter InferenceEvaluator (KNN, regression for numbers), exact",
    ),
    (
        "UEM, identical",
        "UEM: of the original records unique on the columns, the % the synthesis reproduces; "
        "identical: the % of synthetic records equal to an original record",
        "SDNist unique exact match; SDMetrics / MOSTLY AI identical-match share",
    ),
    (
        "DCR",
        "min over original records o of (1/D) Σ_j term_j: min(|Δ| / range, 1) for a numeric "
        "or date column (the original's range), 0/1 for a categorical one; missing against a "
        "value 1, against missing 0 (every record, exact)",
        "SDMetrics 0.32 calculate_dcr (DCRBaselineProtection, DCROverfittingProtection)",
    ),
    (
        "DCR share, DCROverfittingProtection",
        "with a control: share of synthetic records closer to the original than to the "
        "control, ties counted half (lower is safer; riskutility's threshold 0.55); "
        "SDMetrics' score min(2 (1 - share strictly closer), 1) (1 = safe)",
        "mostlyai-qa, riskutility dcr(); SDMetrics DCROverfittingProtection",
    ),
    (
        "membership AUC, TPR at FPR",
        "score -DCR(x, synthesis) of every original (member) and control (non-member) record: "
        "P(member scores above non-member), ties half (0.5 = chance); the largest share of "
        "members a threshold calls members while calling at most that share of non-members",
        "Synth-MIA, NeMo DCR attack; Carlini et al. 2022 (TPR at low FPR)",
    ),
)
