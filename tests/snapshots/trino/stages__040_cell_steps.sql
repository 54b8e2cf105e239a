CREATE TABLE "__disco_cells" AS
WITH "__disco_cells_base" AS (
  /* stages/030_cells.sql.j2: the (j, q, t) cells of this target */
  SELECT
    j,
    "q_0",
    t,
    d,
    s
  FROM (
    SELECT
      x.j,
      c."q_0",
      c.t,
      c.d,
      CASE x.j WHEN 1 THEN c."s_1" WHEN 2 THEN c."s_2" END AS s
    FROM (
      SELECT
        "q_0",
        "t_0" AS t,
        CAST(COUNT(CASE WHEN src = 0 THEN 1 END) AS BIGINT) AS d,
        CAST(COUNT(CASE WHEN src = 1 THEN 1 END) AS BIGINT) AS "s_1",
        CAST(COUNT(CASE WHEN src = 2 THEN 1 END) AS BIGINT) AS "s_2"
      FROM (
        SELECT
          x.src,
          CAST(CAST(COALESCE(__disco_k0.code, 0) AS BIGINT) * CAST(1 AS BIGINT) + CAST(COALESCE(__disco_k1.code, 0) AS BIGINT) * CAST(3 AS BIGINT) + CAST(COALESCE(__disco_k2.code, 0) AS BIGINT) * CAST(240 AS BIGINT) + CAST(COALESCE(__disco_k3.code, 0) AS BIGINT) * CAST(4080 AS BIGINT) AS BIGINT) AS "q_0",
          CAST(COALESCE(__disco_t0.code, 0) AS SMALLINT) AS "t_0"
        FROM (
          SELECT
            CAST(0 AS SMALLINT) AS src,
            __disco_x."sex" AS __disco_k0,
            __disco_x."age" AS __disco_k1,
            __disco_x."region" AS __disco_k2,
            __disco_x."placesize" AS __disco_k3,
            __disco_x."income" AS __disco_t0
          FROM "survey"."sd2011" AS __disco_x
          /* stage 015's table: when an export-time decision no longer holds it was never created */
          CROSS JOIN "__disco_guard"
          UNION ALL
          SELECT
            CAST(1 AS SMALLINT) AS src,
            __disco_x."sex" AS __disco_k0,
            __disco_x."age" AS __disco_k1,
            __disco_x."region" AS __disco_k2,
            __disco_x."placesize" AS __disco_k3,
            __disco_x."income" AS __disco_t0
          FROM "survey"."syn_1" AS __disco_x
          /* stage 015's table: when an export-time decision no longer holds it was never created */
          CROSS JOIN "__disco_guard"
          UNION ALL
          SELECT
            CAST(2 AS SMALLINT) AS src,
            __disco_x."sex" AS __disco_k0,
            __disco_x."age" AS __disco_k1,
            __disco_x."region" AS __disco_k2,
            __disco_x."placesize" AS __disco_k3,
            __disco_x."income" AS __disco_t0
          FROM "survey"."syn_2" AS __disco_x
          /* stage 015's table: when an export-time decision no longer holds it was never created */
          CROSS JOIN "__disco_guard"
        ) AS x
        LEFT JOIN "__disco_levels_k0" AS __disco_k0
          ON __disco_k0.v = x.__disco_k0
        LEFT JOIN "__disco_levels_k1" AS __disco_k1
          ON __disco_k1.v = x.__disco_k1
        LEFT JOIN "__disco_levels_k2" AS __disco_k2
          ON __disco_k2.v = x.__disco_k2
        LEFT JOIN "__disco_levels_k3" AS __disco_k3
          ON __disco_k3.v = x.__disco_k3
        LEFT JOIN "__disco_levels_t0" AS __disco_t0
          ON __disco_t0.v = x.__disco_t0
      ) AS records
      GROUP BY
        "q_0",
        "t_0"
    ) AS c
    CROSS JOIN (
      SELECT
        1 AS j
      UNION ALL
      SELECT
        2 AS j
    ) AS x
  ) AS per_synthesis
  WHERE
    d > 0 OR s > 0
), reasons AS (
  SELECT
    j,
    "q_0",
    t,
    d,
    s,
    CASE
      WHEN t = (
        SELECT
          MAX(code)
        FROM "__disco_levels_t0" AS __disco_d
        WHERE
          level = '[-8,600)'
      )
      THEN 1
      WHEN (
        CAST((
          CAST("q_0" AS BIGINT) / CAST(240 AS BIGINT)
        ) AS BIGINT) % CAST(17 AS BIGINT)
      ) = 0
      THEN 3
      WHEN t = (
        SELECT
          MAX(code)
        FROM "__disco_levels_t0" AS __disco_d
        WHERE
          level = '[1440,2000)'
      )
      AND (
        CAST((
          CAST("q_0" AS BIGINT) / CAST(1 AS BIGINT)
        ) AS BIGINT) % CAST(3 AS BIGINT)
      ) = (
        SELECT
          MAX(code)
        FROM "__disco_levels_k0" AS __disco_d
        WHERE
          level = 'MALE'
      )
      THEN 4
      ELSE 0
    END AS reason
  FROM "__disco_cells_base"
), steps AS (
  SELECT
    reasons.*,
    CASE WHEN reason > 0 THEN reason ELSE 0 END AS step_d,
    CASE WHEN reason > 0 THEN reason ELSE 0 END AS step_s
  FROM reasons
), kept AS (
  SELECT
    steps.*,
    CASE WHEN step_d = 0 THEN d ELSE 0 END AS d_keep,
    CASE WHEN step_s = 0 THEN s ELSE 0 END AS s_keep
  FROM steps
)
SELECT
  j,
  "q_0",
  t,
  d,
  s,
  step_d,
  step_s,
  d_keep,
  s_keep
FROM kept;
