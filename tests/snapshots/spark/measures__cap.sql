WITH target_margins AS (
  SELECT
    j,
    t,
    CAST(SUM(d) AS DOUBLE) AS dt,
    CAST(SUM(SUM(d)) OVER (PARTITION BY j) AS DOUBLE) AS nd
  FROM `__disco_cells`
  GROUP BY
    j,
    t
), base AS (
  SELECT
    j,
    100 * CAST(SUM(
      CAST((
        CAST(dt AS DOUBLE) / nd
      ) * (
        CAST(dt AS DOUBLE) / nd
      ) AS DECIMAL(38, 18))
    ) AS DOUBLE) AS base_cap
  FROM target_margins
  GROUP BY
    j
), cap AS (
  SELECT
    j,
    SUM(dq) AS nd,
    SUM(sq) AS ns,
    CAST(SUM(
      CAST(CASE WHEN dq_keep > 0 THEN CAST(dd_keep AS DOUBLE) / dq_keep ELSE 0 END AS DECIMAL(38, 18))
    ) AS DOUBLE) AS capd,
    CAST(SUM(
      CAST(CASE WHEN sq_keep > 0 THEN CAST(ss_keep AS DOUBLE) / sq_keep ELSE 0 END AS DECIMAL(38, 18))
    ) AS DOUBLE) AS caps,
    CAST(SUM(
      CAST(CASE WHEN sq_keep > 0 THEN CAST(ds_keep AS DOUBLE) / sq_keep ELSE 0 END AS DECIMAL(38, 18))
    ) AS DOUBLE) AS dcap,
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
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(cap.capd AS DOUBLE) / CAST(cap.nd AS DOUBLE)
  END AS `CAPd`,
  CASE
    WHEN cap.ns = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(cap.caps AS DOUBLE) / CAST(cap.ns AS DOUBLE)
  END AS `CAPs`,
  CASE
    WHEN cap.nd = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(cap.dcap AS DOUBLE) / CAST(cap.nd AS DOUBLE)
  END AS `DCAP`,
  CASE
    WHEN cap.tcap_den = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(cap.disco AS DOUBLE) / CAST(cap.tcap_den AS DOUBLE)
  END AS `TCAP`,
  CASE
    WHEN cap.dis = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(cap.disco AS DOUBLE) / CAST(cap.dis AS DOUBLE)
  END AS `TCAP_little`
FROM cap
INNER JOIN base
  ON base.j = cap.j
ORDER BY
  cap.j NULLS LAST;
