WITH probs AS (
  /* only a cell with s > 0 needs its q's s.q (then s.q >= s > 0): the others have ps = 0 */
  /* without the join, which is most of this statement's work (docs/performance.md) */
  SELECT
    c.j,
    CAST(c.s AS FLOAT64) / CAST(m.sq AS FLOAT64) AS ps,
    c.d_keep AS dk
  FROM `__disco_cells` AS c
  INNER JOIN `__disco_qcells` AS m
    ON m.j = c.j AND m.`q_0` = c.`q_0`
  WHERE
    c.d_keep > 0 AND c.s > 0
  UNION ALL
  SELECT
    j,
    0.0 AS ps,
    d_keep AS dk
  FROM `__disco_cells`
  WHERE
    d_keep > 0 AND s = 0
), steps AS (
  SELECT
    j,
    ps,
    CAST(SUM(dk) AS INT64) AS n
  FROM probs
  GROUP BY
    j,
    ps
), totals AS (
  SELECT
    j,
    CAST(SUM(dq) AS INT64) AS nd
  FROM `__disco_qcells`
  GROUP BY
    j
)
SELECT
  s.j AS synthesis,
  s.ps,
  CASE
    WHEN t.nd = 0
    THEN CAST('NaN' AS FLOAT64)
    ELSE 100 * CAST(SUM(s.n) OVER (
      PARTITION BY s.j
      ORDER BY s.ps DESC
      rows BETWEEN UNBOUNDED preceding AND CURRENT ROW
    ) AS FLOAT64) / CAST(t.nd AS FLOAT64)
  END AS `DiSCO`
FROM steps AS s
INNER JOIN totals AS t
  ON t.j = s.j
ORDER BY
  s.j NULLS LAST,
  s.ps NULLS LAST;

DROP TABLE IF EXISTS `__disco_cells`;

DROP TABLE IF EXISTS `__disco_qcells`;

DROP TABLE IF EXISTS `__disco_levels_k0`;

DROP TABLE IF EXISTS `__disco_levels_k1`;

DROP TABLE IF EXISTS `__disco_levels_k2`;

DROP TABLE IF EXISTS `__disco_levels_k3`;

DROP TABLE IF EXISTS `__disco_levels_t0`;

DROP TABLE IF EXISTS `__disco_guard`;
