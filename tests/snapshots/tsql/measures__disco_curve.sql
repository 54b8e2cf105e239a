WITH probs AS (
  /* only a cell with s > 0 needs its q's s.q (then s.q >= s > 0): the others have ps = 0 */
  /* without the join, which is most of this statement's work (docs/performance.md) */
  SELECT
    c.j,
    CAST(c.s AS FLOAT) / CAST(m.sq AS FLOAT) AS ps,
    c.d_keep AS dk
  FROM [#__disco_cells] AS c
  INNER JOIN [#__disco_qcells] AS m
    ON m.j = c.j AND m.[q_0] = c.[q_0]
  WHERE
    c.d_keep > 0 AND c.s > 0
  UNION ALL
  SELECT
    j,
    0.0 AS ps,
    d_keep AS dk
  FROM [#__disco_cells]
  WHERE
    d_keep > 0 AND s = 0
), steps AS (
  SELECT
    j AS j,
    ps AS ps,
    CAST(SUM(dk) AS BIGINT) AS n
  FROM probs
  GROUP BY
    j,
    ps
), totals AS (
  SELECT
    j AS j,
    CAST(SUM(dq) AS BIGINT) AS nd
  FROM [#__disco_qcells]
  GROUP BY
    j
)
SELECT
  s.j AS synthesis,
  s.ps,
  CASE
    WHEN t.nd = 0
    THEN CAST('NaN' AS FLOAT)
    ELSE 100 * CAST(SUM(s.n) OVER (
      PARTITION BY s.j
      ORDER BY s.ps DESC
      rows BETWEEN UNBOUNDED preceding AND CURRENT ROW
    ) AS FLOAT) / CAST(t.nd AS FLOAT)
  END AS [DiSCO]
FROM steps AS s
INNER JOIN totals AS t
  ON t.j = s.j
ORDER BY
  CASE WHEN s.j IS NULL THEN 1 ELSE 0 END, s.j,
  CASE WHEN s.ps IS NULL THEN 1 ELSE 0 END, s.ps;

DROP TABLE IF EXISTS [#__disco_cells];

DROP TABLE IF EXISTS [#__disco_qcells];

DROP TABLE IF EXISTS [#__disco_levels_k0];

DROP TABLE IF EXISTS [#__disco_levels_k1];

DROP TABLE IF EXISTS [#__disco_levels_k2];

DROP TABLE IF EXISTS [#__disco_levels_k3];

DROP TABLE IF EXISTS [#__disco_levels_t0];

DROP TABLE IF EXISTS [#__disco_guard];
