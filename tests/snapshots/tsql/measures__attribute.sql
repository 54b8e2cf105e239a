SELECT
  j AS synthesis,
  CASE
    WHEN SUM(dq) = 0
    THEN CAST('NaN' AS FLOAT)
    ELSE 100 * CAST(SUM(CASE WHEN d_levels = 1 THEN orig_d_keep ELSE 0 END) AS FLOAT) / CAST(SUM(dq) AS FLOAT)
  END AS [Dorig],
  CASE
    WHEN SUM(sq) = 0
    THEN CAST('NaN' AS FLOAT)
    ELSE 100 * CAST(SUM(CASE WHEN s_levels = 1 THEN syn_s_keep ELSE 0 END) AS FLOAT) / CAST(SUM(sq) AS FLOAT)
  END AS [Dsyn],
  CASE
    WHEN SUM(dq) = 0
    THEN CAST('NaN' AS FLOAT)
    ELSE 100 * CAST(SUM(CASE WHEN sq > 0 THEN dq_keep ELSE 0 END) AS FLOAT) / CAST(SUM(dq) AS FLOAT)
  END AS [iS],
  CASE
    WHEN SUM(dq) = 0
    THEN CAST('NaN' AS FLOAT)
    ELSE 100 * CAST(SUM(CASE WHEN s_levels = 1 THEN dq_keep ELSE 0 END) AS FLOAT) / CAST(SUM(dq) AS FLOAT)
  END AS [DiS],
  CASE
    WHEN SUM(dq) = 0
    THEN CAST('NaN' AS FLOAT)
    ELSE 100 * CAST(SUM(CASE WHEN s_levels = 1 THEN syn_d_keep ELSE 0 END) AS FLOAT) / CAST(SUM(dq) AS FLOAT)
  END AS [DiSCO],
  CASE
    WHEN SUM(dq) = 0
    THEN CAST('NaN' AS FLOAT)
    ELSE 100 * CAST(SUM(
      CASE WHEN s_levels = 1 AND d_levels = 1 AND syn_d = dq THEN syn_d_keep ELSE 0 END
    ) AS FLOAT) / CAST(SUM(dq) AS FLOAT)
  END AS [DiSDiO],
  CAST(MAX(CASE WHEN s_levels = 1 THEN syn_d_keep ELSE 0 END) AS FLOAT) AS max_denom,
  COALESCE(
    AVG(CASE WHEN s_levels = 1 AND syn_d_keep > 0 THEN CAST(syn_d_keep AS FLOAT) END),
    CAST('NaN' AS FLOAT)
  ) AS mean_denom
FROM [#__disco_qcells]
GROUP BY
  j
ORDER BY
  CASE WHEN j IS NULL THEN 1 ELSE 0 END, j;
