WITH target_margins AS (
  SELECT
    j AS j,
    t AS t,
    CAST(SUM(d) AS FLOAT) AS dt,
    CAST(SUM(SUM(d)) OVER (PARTITION BY j) AS FLOAT) AS nd
  FROM [#__disco_cells]
  GROUP BY
    j,
    t
), base AS (
  SELECT
    j AS j,
    100 * CAST(SUM(
      CAST((
        CAST(dt AS FLOAT) / nd
      ) * (
        CAST(dt AS FLOAT) / nd
      ) AS NUMERIC(38, 18))
    ) AS FLOAT) AS base_cap
  FROM target_margins
  GROUP BY
    j
), cap AS (
  SELECT
    j AS j,
    SUM(dq) AS nd,
    SUM(sq) AS ns,
    CAST(SUM(
      CAST(CASE WHEN dq_keep > 0 THEN CAST(dd_keep AS FLOAT) / dq_keep ELSE 0 END AS NUMERIC(38, 18))
    ) AS FLOAT) AS capd,
    CAST(SUM(
      CAST(CASE WHEN sq_keep > 0 THEN CAST(ss_keep AS FLOAT) / sq_keep ELSE 0 END AS NUMERIC(38, 18))
    ) AS FLOAT) AS caps,
    CAST(SUM(
      CAST(CASE WHEN sq_keep > 0 THEN CAST(ds_keep AS FLOAT) / sq_keep ELSE 0 END AS NUMERIC(38, 18))
    ) AS FLOAT) AS dcap,
    SUM(CASE WHEN s_levels = 1 THEN syn_d_keep ELSE 0 END) AS disco,
    SUM(CASE WHEN sq_keep > 0 THEN dq_keep ELSE 0 END) AS tcap_den,
    SUM(CASE WHEN s_levels = 1 THEN dq_keep ELSE 0 END) AS dis
  FROM [#__disco_qcells]
  GROUP BY
    j
)
SELECT
  cap.j AS synthesis,
  base.base_cap AS [baseCAPd],
  CASE
    WHEN cap.nd = 0
    THEN CAST('NaN' AS FLOAT)
    ELSE 100 * CAST(cap.capd AS FLOAT) / CAST(cap.nd AS FLOAT)
  END AS [CAPd],
  CASE
    WHEN cap.ns = 0
    THEN CAST('NaN' AS FLOAT)
    ELSE 100 * CAST(cap.caps AS FLOAT) / CAST(cap.ns AS FLOAT)
  END AS [CAPs],
  CASE
    WHEN cap.nd = 0
    THEN CAST('NaN' AS FLOAT)
    ELSE 100 * CAST(cap.dcap AS FLOAT) / CAST(cap.nd AS FLOAT)
  END AS [DCAP],
  CASE
    WHEN cap.tcap_den = 0
    THEN CAST('NaN' AS FLOAT)
    ELSE 100 * CAST(cap.disco AS FLOAT) / CAST(cap.tcap_den AS FLOAT)
  END AS [TCAP],
  CASE
    WHEN cap.dis = 0
    THEN CAST('NaN' AS FLOAT)
    ELSE 100 * CAST(cap.disco AS FLOAT) / CAST(cap.dis AS FLOAT)
  END AS [TCAP_little]
FROM cap
INNER JOIN base
  ON base.j = cap.j
ORDER BY
  CASE WHEN cap.j IS NULL THEN 1 ELSE 0 END, cap.j;
