WITH target_margins AS (
  SELECT
    j,
    t,
    CAST(SUM(d) AS FLOAT64) AS dt,
    CAST(SUM(SUM(d)) OVER (PARTITION BY j) AS FLOAT64) AS nd
  FROM `__disco_cells`
  GROUP BY
    j,
    t
), base AS (
  SELECT
    j,
    100 * CAST(SUM(
      CAST((
        CAST(dt AS FLOAT64) / nd
      ) * (
        CAST(dt AS FLOAT64) / nd
      ) AS BIGNUMERIC)
    ) AS FLOAT64) AS base_cap
  FROM target_margins
  GROUP BY
    j
), cap AS (
  SELECT
    j,
    SUM(dq) AS nd,
    SUM(sq) AS ns,
    CAST(SUM(
      CAST(CASE WHEN dq_keep > 0 THEN CAST(dd_keep AS FLOAT64) / dq_keep ELSE 0 END AS BIGNUMERIC)
    ) AS FLOAT64) AS capd,
    CAST(SUM(
      CAST(CASE WHEN sq_keep > 0 THEN CAST(ss_keep AS FLOAT64) / sq_keep ELSE 0 END AS BIGNUMERIC)
    ) AS FLOAT64) AS caps,
    CAST(SUM(
      CAST(CASE WHEN sq_keep > 0 THEN CAST(ds_keep AS FLOAT64) / sq_keep ELSE 0 END AS BIGNUMERIC)
    ) AS FLOAT64) AS dcap,
    SUM(CASE WHEN s_levels = 1 THEN syn_d_keep ELSE 0 END) AS disco,
    SUM(CASE WHEN sq_keep > 0 THEN dq_keep ELSE 0 END) AS tcap_den,
    SUM(CASE WHEN s_levels = 1 THEN dq_keep ELSE 0 END) AS dis
  FROM `__disco_qcells`
  GROUP BY
    j
)
SELECT
  cap.j AS synthesis,
  base.base_cap AS `baseCAPd`,
  CASE
    WHEN cap.nd = 0
    THEN CAST('NaN' AS FLOAT64)
    ELSE 100 * CAST(cap.capd AS FLOAT64) / CAST(cap.nd AS FLOAT64)
  END AS `CAPd`,
  CASE
    WHEN cap.ns = 0
    THEN CAST('NaN' AS FLOAT64)
    ELSE 100 * CAST(cap.caps AS FLOAT64) / CAST(cap.ns AS FLOAT64)
  END AS `CAPs`,
  CASE
    WHEN cap.nd = 0
    THEN CAST('NaN' AS FLOAT64)
    ELSE 100 * CAST(cap.dcap AS FLOAT64) / CAST(cap.nd AS FLOAT64)
  END AS `DCAP`,
  CASE
    WHEN cap.tcap_den = 0
    THEN CAST('NaN' AS FLOAT64)
    ELSE 100 * CAST(cap.disco AS FLOAT64) / CAST(cap.tcap_den AS FLOAT64)
  END AS `TCAP`,
  CASE
    WHEN cap.dis = 0
    THEN CAST('NaN' AS FLOAT64)
    ELSE 100 * CAST(cap.disco AS FLOAT64) / CAST(cap.dis AS FLOAT64)
  END AS `TCAP_little`
FROM cap
INNER JOIN base
  ON base.j = cap.j
ORDER BY
  cap.j NULLS LAST;
