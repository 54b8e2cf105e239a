WITH by_level AS (
  /* every target level of the cells, with the DiSCO records of the q whose one synthetic */
  /* cell has that level (stage 045) */
  SELECT
    a.j AS j,
    a.t AS t,
    a.n_all AS n_all,
    COALESCE(x.n_dis, 0) AS n_dis
  FROM (
    SELECT
      j AS j,
      t AS t,
      SUM(d_keep) AS n_all
    FROM [#__disco_cells]
    GROUP BY
      j,
      t
  ) AS a
  LEFT JOIN (
    SELECT
      j AS j,
      syn_t AS t,
      SUM(syn_d_keep) AS n_dis
    FROM [#__disco_qcells]
    WHERE
      s_levels = 1
    GROUP BY
      j,
      syn_t
  ) AS x
    ON x.j = a.j AND x.t = a.t
), named AS (
  SELECT
    b.j AS j,
    n.level AS t,
    b.n_all AS n_all,
    b.n_dis AS n_dis
  FROM by_level AS b
  INNER JOIN (
    SELECT DISTINCT
      code AS code,
      level AS level
    FROM [#__disco_levels_t0] AS __disco_d
  ) AS n
    ON n.code = b.t
), ranked AS (
  SELECT
    j AS j,
    t AS t,
    n_all AS n_all,
    n_dis AS n_dis,
    SUM(n_all) OVER (PARTITION BY j) AS total_all,
    SUM(n_dis) OVER (PARTITION BY j) AS total_dis,
    ROW_NUMBER() OVER (PARTITION BY j ORDER BY n_dis DESC, CASE WHEN t IS NULL THEN 1 ELSE 0 END, t) AS rank_dis
  FROM named
)
SELECT
  j AS synthesis,
  t AS [Level],
  CAST(total_all AS BIGINT) AS [All],
  CASE
    WHEN total_all = 0
    THEN CAST('NaN' AS FLOAT)
    ELSE 100 * CAST(n_all AS FLOAT) / CAST(total_all AS FLOAT)
  END AS [PctLevelAll],
  CAST(total_dis AS BIGINT) AS [totalDisclosive],
  CAST(n_dis AS BIGINT) AS [nLevelDis],
  CASE
    WHEN total_dis = 0
    THEN CAST('NaN' AS FLOAT)
    ELSE 100 * CAST(n_dis AS FLOAT) / CAST(total_dis AS FLOAT)
  END AS [PctLevelDis]
FROM ranked
WHERE
  rank_dis = 1
  AND n_dis > CAST('50.0' AS FLOAT)
  AND total_dis > 0
  AND 100 * CAST(n_dis AS FLOAT) / CAST(total_dis AS FLOAT) > CAST('90.0' AS FLOAT)
ORDER BY
  CASE WHEN j IS NULL THEN 1 ELSE 0 END, j;
