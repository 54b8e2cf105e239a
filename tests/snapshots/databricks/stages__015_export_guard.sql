CREATE TABLE `__disco_guard` AS
SELECT
  CAST(CASE
    WHEN c_0.bad > 0
    THEN RAISE_ERROR(
      (
        'discosql: the data differ from those this script was exported from: the grouping breaks of target \'income\' were computed from other values (grouping/stats); re-export the script (discosql.to_sql) from the data it runs on (check 0, count ' || CAST(c_0.bad AS STRING) || ')'
      )
    )
  END AS INT) AS `ok_0`,
  CAST(CASE
    WHEN c_1.bad > 0
    THEN RAISE_ERROR(
      (
        'discosql: the data differ from those this script was exported from: the grouping breaks of target \'income\' were computed from other values (grouping/order_stats); re-export the script (discosql.to_sql) from the data it runs on (check 1, count ' || CAST(c_1.bad AS STRING) || ')'
      )
    )
  END AS INT) AS `ok_1`,
  CAST(CASE
    WHEN c_2.bad > 0
    THEN RAISE_ERROR(
      (
        'discosql: the data differ from those this script was exported from: key \'sex\' has more than the 2 levels the q packing was fixed for; re-export the script (discosql.to_sql) from the data it runs on (check 2, count ' || CAST(c_2.bad AS STRING) || ')'
      )
    )
  END AS INT) AS `ok_2`,
  CAST(CASE
    WHEN c_3.bad > 0
    THEN RAISE_ERROR(
      (
        'discosql: the data differ from those this script was exported from: key \'age\' has more than the 79 levels the q packing was fixed for; re-export the script (discosql.to_sql) from the data it runs on (check 3, count ' || CAST(c_3.bad AS STRING) || ')'
      )
    )
  END AS INT) AS `ok_3`,
  CAST(CASE
    WHEN c_4.bad > 0
    THEN RAISE_ERROR(
      (
        'discosql: the data differ from those this script was exported from: key \'region\' has more than the 16 levels the q packing was fixed for; re-export the script (discosql.to_sql) from the data it runs on (check 4, count ' || CAST(c_4.bad AS STRING) || ')'
      )
    )
  END AS INT) AS `ok_4`,
  CAST(CASE
    WHEN c_5.bad > 0
    THEN RAISE_ERROR(
      (
        'discosql: the data differ from those this script was exported from: key \'placesize\' has more than the 6 levels the q packing was fixed for; re-export the script (discosql.to_sql) from the data it runs on (check 5, count ' || CAST(c_5.bad AS STRING) || ')'
      )
    )
  END AS INT) AS `ok_5`,
  CAST(CASE
    WHEN c_6.bad > 0
    THEN RAISE_ERROR(
      (
        'discosql: the data differ from those this script was exported from: target \'income\' has more than 32767 levels (smallint codes); re-export the script (discosql.to_sql) from the data it runs on (check 6, count ' || CAST(c_6.bad AS STRING) || ')'
      )
    )
  END AS INT) AS `ok_6`,
  CAST(CASE
    WHEN c_7.bad > 0
    THEN RAISE_ERROR(
      (
        'discosql: the data differ from those this script was exported from: not_targetlev: \'[-8,600)\' is no longer a level of \'income\'; re-export the script (discosql.to_sql) from the data it runs on (check 7, count ' || CAST(c_7.bad AS STRING) || ')'
      )
    )
  END AS INT) AS `ok_7`,
  CAST(CASE
    WHEN c_8.bad > 0
    THEN RAISE_ERROR(
      (
        'discosql: the data differ from those this script was exported from: exclude_targetlevs[0]: \'[1440,2000)\' is no longer a level of \'income\'; re-export the script (discosql.to_sql) from the data it runs on (check 8, count ' || CAST(c_8.bad AS STRING) || ')'
      )
    )
  END AS INT) AS `ok_8`,
  CAST(CASE
    WHEN c_9.bad > 0
    THEN RAISE_ERROR(
      (
        'discosql: the data differ from those this script was exported from: exclude_keylevs[0]: \'MALE\' is no longer a level of \'sex\'; re-export the script (discosql.to_sql) from the data it runs on (check 9, count ' || CAST(c_9.bad AS STRING) || ')'
      )
    )
  END AS INT) AS `ok_9`
FROM (
  /* each side's rows are distinct: a row of one side without its twin on the other */
  /* is a difference (the query appears once, the rows it gave then are literals) */
  SELECT
    COUNT(*) AS bad
  FROM (
    SELECT
      `n_orig`,
      `n_syn`,
      `n_distinct`,
      `min_value`,
      `max_value`,
      `n_infinite`
    FROM (
      SELECT
        `n_orig`,
        `n_syn`,
        `n_distinct`,
        `min_value`,
        `max_value`,
        `n_infinite`,
        1 AS side
      FROM (
        WITH pooled AS (
          SELECT
            0 AS src,
            CAST(`income` AS DOUBLE) AS v
          FROM `survey`.`sd2011` AS __disco_p
          UNION ALL
          SELECT
            1 AS src,
            CAST(`income` AS DOUBLE) AS v
          FROM `survey`.`syn_1` AS __disco_p
          UNION ALL
          SELECT
            2 AS src,
            CAST(`income` AS DOUBLE) AS v
          FROM `survey`.`syn_2` AS __disco_p
        ), flagged AS (
          SELECT
            src,
            v,
            CASE WHEN NOT v IS NULL AND NOT ISNAN(v) THEN 1 ELSE 0 END AS usable
          FROM pooled
        )
        SELECT
          SUM(CASE WHEN usable = 1 AND src = 0 THEN 1 ELSE 0 END) AS n_orig,
          SUM(CASE WHEN usable = 1 AND src > 0 THEN 1 ELSE 0 END) AS n_syn,
          COUNT(DISTINCT CASE WHEN usable = 1 THEN v END) AS n_distinct,
          MIN(CASE WHEN usable = 1 THEN v END) AS min_value,
          MAX(CASE WHEN usable = 1 THEN v END) AS max_value,
          SUM(CASE WHEN usable = 1 AND (
            ABS(v) > 1.7976931348623157e308
          ) THEN 1 ELSE 0 END) AS n_infinite
        FROM flagged
      ) AS now
      UNION ALL
      SELECT
        4317,
        8637,
        406,
        CAST('-8.0' AS DOUBLE),
        CAST('16000.0' AS DOUBLE),
        0,
        2
    ) AS both_sides
    GROUP BY
      `n_orig`,
      `n_syn`,
      `n_distinct`,
      `min_value`,
      `max_value`,
      `n_infinite`
    HAVING
      COUNT(*) <> 2 OR MIN(side) = MAX(side)
  ) AS diff
) AS `c_0`
CROSS JOIN (
  /* each side's rows are distinct: a row of one side without its twin on the other */
  /* is a difference (the query appears once, the rows it gave then are literals) */
  SELECT
    COUNT(*) AS bad
  FROM (
    SELECT
      `rank_pos`,
      `v`
    FROM (
      SELECT
        `rank_pos`,
        `v`,
        1 AS side
      FROM (
        WITH pooled AS (
          SELECT
            0 AS src,
            CAST(`income` AS DOUBLE) AS v
          FROM `survey`.`sd2011` AS __disco_p
          UNION ALL
          SELECT
            1 AS src,
            CAST(`income` AS DOUBLE) AS v
          FROM `survey`.`syn_1` AS __disco_p
          UNION ALL
          SELECT
            2 AS src,
            CAST(`income` AS DOUBLE) AS v
          FROM `survey`.`syn_2` AS __disco_p
        ), counted AS (
          SELECT
            v,
            COUNT(*) AS n
          FROM pooled
          WHERE
            NOT v IS NULL AND NOT ISNAN(v)
          GROUP BY
            v
        ), cumulative AS (
          SELECT
            v,
            SUM(n) OVER (ORDER BY v NULLS LAST rows BETWEEN UNBOUNDED preceding AND CURRENT ROW) AS upto
          FROM counted
        ), wanted AS (
          SELECT
            1 AS rank_pos
          UNION ALL
          SELECT
            2591 AS rank_pos
          UNION ALL
          SELECT
            2592 AS rank_pos
          UNION ALL
          SELECT
            5182 AS rank_pos
          UNION ALL
          SELECT
            5183 AS rank_pos
          UNION ALL
          SELECT
            7772 AS rank_pos
          UNION ALL
          SELECT
            7773 AS rank_pos
          UNION ALL
          SELECT
            10363 AS rank_pos
          UNION ALL
          SELECT
            10364 AS rank_pos
          UNION ALL
          SELECT
            12954 AS rank_pos
        )
        SELECT
          w.rank_pos,
          MIN(c.v) AS v
        FROM wanted AS w
        INNER JOIN cumulative AS c
          ON c.upto >= w.rank_pos
        GROUP BY
          w.rank_pos
        ORDER BY
          w.rank_pos NULLS LAST
      ) AS now
      UNION ALL
      SELECT
        1,
        CAST('-8.0' AS DOUBLE),
        2
      UNION ALL
      SELECT
        2591,
        CAST('600.0' AS DOUBLE),
        2
      UNION ALL
      SELECT
        2592,
        CAST('600.0' AS DOUBLE),
        2
      UNION ALL
      SELECT
        5182,
        CAST('1000.0' AS DOUBLE),
        2
      UNION ALL
      SELECT
        5183,
        CAST('1000.0' AS DOUBLE),
        2
      UNION ALL
      SELECT
        7772,
        CAST('1440.0' AS DOUBLE),
        2
      UNION ALL
      SELECT
        7773,
        CAST('1440.0' AS DOUBLE),
        2
      UNION ALL
      SELECT
        10363,
        CAST('2000.0' AS DOUBLE),
        2
      UNION ALL
      SELECT
        10364,
        CAST('2000.0' AS DOUBLE),
        2
      UNION ALL
      SELECT
        12954,
        CAST('16000.0' AS DOUBLE),
        2
    ) AS both_sides
    GROUP BY
      `rank_pos`,
      `v`
    HAVING
      COUNT(*) <> 2 OR MIN(side) = MAX(side)
  ) AS diff
) AS `c_1`
CROSS JOIN (
  SELECT
    COUNT(*) AS bad
  FROM `__disco_levels_k0` AS __disco_d
  WHERE
    code >= 3
) AS `c_2`
CROSS JOIN (
  SELECT
    COUNT(*) AS bad
  FROM `__disco_levels_k1` AS __disco_d
  WHERE
    code >= 80
) AS `c_3`
CROSS JOIN (
  SELECT
    COUNT(*) AS bad
  FROM `__disco_levels_k2` AS __disco_d
  WHERE
    code >= 17
) AS `c_4`
CROSS JOIN (
  SELECT
    COUNT(*) AS bad
  FROM `__disco_levels_k3` AS __disco_d
  WHERE
    code >= 7
) AS `c_5`
CROSS JOIN (
  SELECT
    COUNT(*) AS bad
  FROM `__disco_levels_t0` AS __disco_d
  WHERE
    code >= 32768
) AS `c_6`
CROSS JOIN (
  SELECT
    CASE WHEN COUNT(*) = 0 THEN 1 ELSE 0 END AS bad
  FROM `__disco_levels_t0` AS __disco_d
  WHERE
    level = '[-8,600)'
) AS `c_7`
CROSS JOIN (
  SELECT
    CASE WHEN COUNT(*) = 0 THEN 1 ELSE 0 END AS bad
  FROM `__disco_levels_t0` AS __disco_d
  WHERE
    level = '[1440,2000)'
) AS `c_8`
CROSS JOIN (
  SELECT
    CASE WHEN COUNT(*) = 0 THEN 1 ELSE 0 END AS bad
  FROM `__disco_levels_k0` AS __disco_d
  WHERE
    level = 'MALE'
) AS `c_9`;
