WITH big AS (
  SELECT
    j,
    key_pos,
    key_level,
    t,
    SUM(n) AS npairs
  FROM (
    SELECT
      c.j,
      k.key_pos,
      CASE k.key_pos
        WHEN 0
        THEN (
          CAST((
            CAST(c."q_0" AS BIGINT) / CAST(1 AS BIGINT)
          ) AS BIGINT) % CAST(3 AS BIGINT)
        )
        WHEN 1
        THEN (
          CAST((
            CAST(c."q_0" AS BIGINT) / CAST(3 AS BIGINT)
          ) AS BIGINT) % CAST(80 AS BIGINT)
        )
        WHEN 2
        THEN (
          CAST((
            CAST(c."q_0" AS BIGINT) / CAST(240 AS BIGINT)
          ) AS BIGINT) % CAST(17 AS BIGINT)
        )
        WHEN 3
        THEN (
          CAST((
            CAST(c."q_0" AS BIGINT) / CAST(4080 AS BIGINT)
          ) AS BIGINT) % CAST(7 AS BIGINT)
        )
      END AS key_level,
      c.syn_t AS t,
      c.syn_d_keep AS n
    FROM "__disco_qcells" AS c
    CROSS JOIN (
      SELECT
        0 AS key_pos
      UNION ALL
      SELECT
        1 AS key_pos
      UNION ALL
      SELECT
        2 AS key_pos
      UNION ALL
      SELECT
        3 AS key_pos
    ) AS k
    WHERE
      c.s_levels = 1 AND c.syn_d_keep > CAST('4.0' AS DOUBLE)
  ) AS by_key
  GROUP BY
    j,
    key_pos,
    key_level,
    t
), key_target AS (
  SELECT
    j,
    key_pos,
    key_level,
    t,
    key_target_total,
    SUM(key_target_total) OVER (PARTITION BY j, key_pos, key_level) AS key_total
  FROM (
    /* no big cell, no pair: then the cells (this statement's work) are not read */
    SELECT
      j,
      key_pos,
      key_level,
      t,
      SUM(n) AS key_target_total
    FROM (
      SELECT
        c.j,
        k.key_pos,
        CASE k.key_pos
          WHEN 0
          THEN (
            CAST((
              CAST(c."q_0" AS BIGINT) / CAST(1 AS BIGINT)
            ) AS BIGINT) % CAST(3 AS BIGINT)
          )
          WHEN 1
          THEN (
            CAST((
              CAST(c."q_0" AS BIGINT) / CAST(3 AS BIGINT)
            ) AS BIGINT) % CAST(80 AS BIGINT)
          )
          WHEN 2
          THEN (
            CAST((
              CAST(c."q_0" AS BIGINT) / CAST(240 AS BIGINT)
            ) AS BIGINT) % CAST(17 AS BIGINT)
          )
          WHEN 3
          THEN (
            CAST((
              CAST(c."q_0" AS BIGINT) / CAST(4080 AS BIGINT)
            ) AS BIGINT) % CAST(7 AS BIGINT)
          )
        END AS key_level,
        c.t AS t,
        c.d AS n
      FROM "__disco_cells" AS c
      CROSS JOIN (
        SELECT
          0 AS key_pos
        UNION ALL
        SELECT
          1 AS key_pos
        UNION ALL
        SELECT
          2 AS key_pos
        UNION ALL
        SELECT
          3 AS key_pos
      ) AS k
      WHERE
        c.d > 0 AND EXISTS(
          SELECT
            1
          FROM big
        )
    ) AS by_cell
    GROUP BY
      j,
      key_pos,
      key_level,
      t
  ) AS by_key
), pairs AS (
  SELECT
    b.j,
    b.key_pos,
    b.key_level,
    b.t,
    b.npairs,
    kt.key_target_total,
    kt.key_total
  FROM big AS b
  INNER JOIN key_target AS kt
    ON kt.j = b.j AND kt.key_pos = b.key_pos AND kt.key_level = b.key_level AND kt.t = b.t
), key_names AS (
  SELECT DISTINCT
    0 AS key_pos,
    code,
    level
  FROM "__disco_levels_k0" AS __disco_d
  UNION ALL
  SELECT DISTINCT
    1 AS key_pos,
    code,
    level
  FROM "__disco_levels_k1" AS __disco_d
  UNION ALL
  SELECT DISTINCT
    2 AS key_pos,
    code,
    level
  FROM "__disco_levels_k2" AS __disco_d
  UNION ALL
  SELECT DISTINCT
    3 AS key_pos,
    code,
    level
  FROM "__disco_levels_k3" AS __disco_d
), flagged AS (
  SELECT
    p.j AS synthesis,
    p.key_pos,
    CONCAT(CAST(nt.level AS VARCHAR), CAST('|' AS VARCHAR), CAST(kn.level AS VARCHAR)) AS target_key_levs,
    CAST(p.npairs AS BIGINT) AS npairs,
    CASE p.key_pos
      WHEN 0
      THEN 'sex'
      WHEN 1
      THEN 'age'
      WHEN 2
      THEN 'region'
      WHEN 3
      THEN 'placesize'
    END AS "key",
    CAST(p.key_target_total AS BIGINT) AS key_target_total,
    CAST(p.key_total AS BIGINT) AS key_total,
    CASE
      WHEN p.key_total = 0
      THEN CAST('NaN' AS DOUBLE)
      ELSE 100 * CAST(p.key_target_total AS DOUBLE) / CAST(p.key_total AS DOUBLE)
    END AS "PctTargetKeyLevel"
  FROM pairs AS p
  INNER JOIN (
    SELECT DISTINCT
      code,
      level
    FROM "__disco_levels_t0" AS __disco_d
  ) AS nt
    ON nt.code = p.t
  INNER JOIN key_names AS kn
    ON kn.key_pos = p.key_pos AND kn.code = p.key_level
  WHERE
    100 * CAST(p.key_target_total AS DOUBLE) / CAST(p.key_total AS DOUBLE) > CAST('80.0' AS DOUBLE)
)
SELECT
  synthesis,
  target_key_levs,
  npairs,
  "key",
  key_target_total,
  key_total,
  "PctTargetKeyLevel"
FROM flagged
ORDER BY
  synthesis,
  npairs DESC,
  key_pos,
  target_key_levs;
