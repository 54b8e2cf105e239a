-- discosql 0.1.0: synthpop disclosure() measures as SQL (spark dialect)
-- keys sex, age, region, placesize; target(s) income; m = 2
-- reads:
--   original: "survey"."sd2011"
--   synthetic 1: "survey"."syn_1"
--   synthetic 2: "survey"."syn_2"
-- Results: for each target, one SELECT per table: ident, attrib, allcaps, exclusions,
-- check_1way, check_2way (percentages 0-100, as synthpop). Work tables start with
-- __disco_ (temporary; on Spark tables of the current database, dropped at the end).
-- Decisions that needed the data were made at export time (below, per target). The
-- script checks them before it counts (stage 015) and stops, naming the column, when
-- the data it runs on no longer fit them: re-export then. In a shell that goes on after
-- an error every later statement fails too and no numbers print; to stop at once run
-- `duckdb -bail`, `psql -v ON_ERROR_STOP=1` or your console's equivalent.

--
-- ===== target 'income' =====
-- options: denom_lim=5, exclude_ov_denom_lim=False, not_targetlev=['[-8,600)'], use_target_na=True, use_keys_na=[True, True, False, True], exclude=[('sex', 'MALE', '[1440,2000)')], thresh_1way=(50.0, 90.0), thresh_2way=(4.0, 80.0)
-- grouping of 'income' (decided at export time, quantile breaks): ['[-8,600)', '[600,1000)', '[1000,1440)', '[1440,2000)', '[2000,16000]']
-- level arguments checked against the data at export time
-- q packing (decided at export time): key radices [3, 80, 17, 7] (levels + 1), 1 BIGINT word(s); more levels in the data need a new export

DROP TABLE IF EXISTS `__disco_levels_k0`;

-- stages/010_codes.sql.j2
-- Stage 010 codes: the level dictionary of one column (a key or a target). Every distinct raw
-- value in the original and the syntheses gets its level name (synthpop's factor levels, as
-- macros/levels) and an integer code: 0 for 'Missing' (NA, NaN, a genuine 'Missing'), 1..n for
-- the other names in byte order. Later stages count and join small integers, and turn codes
-- back into names only in the few rows of the checks.
-- Context: column = {name, grouping, as_text} (as_text: the column's engine types differ
--          between data sets, e.g. BIGINT and DOUBLE, so raw values are matched by their text,
--          not by a lossy union); sources = [{src, sql, kinds}] (data sets where the column
--          has values); na_only_missing: only NA and NaN get code 0, and a genuine text
--          'Missing' gets a code of its own (replicated uniques compare values).
-- Output:  v (a raw value, or its text), level VARCHAR, code BIGINT. One row per distinct v,
--          plus (NULL, 'Missing', 0) so that 'Missing' always has a name; NULL raw values never
--          match v, their code is 0.
-- synthpop: D:197-262 (factor(), grouping, "Missing").

CREATE TABLE `__disco_levels_k0` AS
WITH named AS (
  SELECT
    v,
    COALESCE(CAST(`__disco_x` AS STRING), 'Missing') AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      `sex` AS v,
      MIN(`sex`) AS `__disco_x`
    FROM `survey`.`sd2011` AS __disco_s
    WHERE
      NOT `sex` IS NULL
    GROUP BY
      `sex`
  ) AS raw_0
  UNION
  SELECT
    v,
    COALESCE(CAST(`__disco_x` AS STRING), 'Missing') AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      `sex` AS v,
      MIN(`sex`) AS `__disco_x`
    FROM `survey`.`syn_1` AS __disco_s
    WHERE
      NOT `sex` IS NULL
    GROUP BY
      `sex`
  ) AS raw_1
  UNION
  SELECT
    v,
    COALESCE(CAST(`__disco_x` AS STRING), 'Missing') AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      `sex` AS v,
      MIN(`sex`) AS `__disco_x`
    FROM `survey`.`syn_2` AS __disco_s
    WHERE
      NOT `sex` IS NULL
    GROUP BY
      `sex`
  ) AS raw_2
  UNION
  SELECT
    NULL AS v,
    'Missing' AS level
), one_per_value AS (
  /* the same value may come from several data sets (as 0.0 in one, -0.0 in another) */
  SELECT
    v,
    MIN(level) AS level
  FROM named
  GROUP BY
    v
)
SELECT
  v,
  level,
  CAST(CASE
    WHEN level = 'Missing'
    THEN 0
    ELSE DENSE_RANK() OVER (
      PARTITION BY CASE WHEN level = 'Missing' THEN 1 ELSE 0 END
      ORDER BY level NULLS LAST
    )
  END AS BIGINT) AS code /* BIGINT where it is made: dense_rank() is a 32-bit INT on Spark, a DECIMAL elsewhere */
FROM one_per_value;

DROP TABLE IF EXISTS `__disco_levels_k1`;

-- stages/010_codes.sql.j2
-- Stage 010 codes: the level dictionary of one column (a key or a target). Every distinct raw
-- value in the original and the syntheses gets its level name (synthpop's factor levels, as
-- macros/levels) and an integer code: 0 for 'Missing' (NA, NaN, a genuine 'Missing'), 1..n for
-- the other names in byte order. Later stages count and join small integers, and turn codes
-- back into names only in the few rows of the checks.
-- Context: column = {name, grouping, as_text} (as_text: the column's engine types differ
--          between data sets, e.g. BIGINT and DOUBLE, so raw values are matched by their text,
--          not by a lossy union); sources = [{src, sql, kinds}] (data sets where the column
--          has values); na_only_missing: only NA and NaN get code 0, and a genuine text
--          'Missing' gets a code of its own (replicated uniques compare values).
-- Output:  v (a raw value, or its text), level VARCHAR, code BIGINT. One row per distinct v,
--          plus (NULL, 'Missing', 0) so that 'Missing' always has a name; NULL raw values never
--          match v, their code is 0.
-- synthpop: D:197-262 (factor(), grouping, "Missing").

CREATE TABLE `__disco_levels_k1` AS
WITH named AS (
  SELECT
    v,
    COALESCE(CAST(`__disco_x` AS STRING), 'Missing') AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      `age` AS v,
      MIN(`age`) AS `__disco_x`
    FROM `survey`.`sd2011` AS __disco_s
    WHERE
      NOT `age` IS NULL
    GROUP BY
      `age`
  ) AS raw_0
  UNION
  SELECT
    v,
    COALESCE(CAST(`__disco_x` AS STRING), 'Missing') AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      `age` AS v,
      MIN(`age`) AS `__disco_x`
    FROM `survey`.`syn_1` AS __disco_s
    WHERE
      NOT `age` IS NULL
    GROUP BY
      `age`
  ) AS raw_1
  UNION
  SELECT
    v,
    COALESCE(CAST(`__disco_x` AS STRING), 'Missing') AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      `age` AS v,
      MIN(`age`) AS `__disco_x`
    FROM `survey`.`syn_2` AS __disco_s
    WHERE
      NOT `age` IS NULL
    GROUP BY
      `age`
  ) AS raw_2
  UNION
  SELECT
    NULL AS v,
    'Missing' AS level
), one_per_value AS (
  /* the same value may come from several data sets (as 0.0 in one, -0.0 in another) */
  SELECT
    v,
    MIN(level) AS level
  FROM named
  GROUP BY
    v
)
SELECT
  v,
  level,
  CAST(CASE
    WHEN level = 'Missing'
    THEN 0
    ELSE DENSE_RANK() OVER (
      PARTITION BY CASE WHEN level = 'Missing' THEN 1 ELSE 0 END
      ORDER BY level NULLS LAST
    )
  END AS BIGINT) AS code /* BIGINT where it is made: dense_rank() is a 32-bit INT on Spark, a DECIMAL elsewhere */
FROM one_per_value;

DROP TABLE IF EXISTS `__disco_levels_k2`;

-- stages/010_codes.sql.j2
-- Stage 010 codes: the level dictionary of one column (a key or a target). Every distinct raw
-- value in the original and the syntheses gets its level name (synthpop's factor levels, as
-- macros/levels) and an integer code: 0 for 'Missing' (NA, NaN, a genuine 'Missing'), 1..n for
-- the other names in byte order. Later stages count and join small integers, and turn codes
-- back into names only in the few rows of the checks.
-- Context: column = {name, grouping, as_text} (as_text: the column's engine types differ
--          between data sets, e.g. BIGINT and DOUBLE, so raw values are matched by their text,
--          not by a lossy union); sources = [{src, sql, kinds}] (data sets where the column
--          has values); na_only_missing: only NA and NaN get code 0, and a genuine text
--          'Missing' gets a code of its own (replicated uniques compare values).
-- Output:  v (a raw value, or its text), level VARCHAR, code BIGINT. One row per distinct v,
--          plus (NULL, 'Missing', 0) so that 'Missing' always has a name; NULL raw values never
--          match v, their code is 0.
-- synthpop: D:197-262 (factor(), grouping, "Missing").

CREATE TABLE `__disco_levels_k2` AS
WITH named AS (
  SELECT
    v,
    COALESCE(CAST(`__disco_x` AS STRING), 'Missing') AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      `region` AS v,
      MIN(`region`) AS `__disco_x`
    FROM `survey`.`sd2011` AS __disco_s
    WHERE
      NOT `region` IS NULL
    GROUP BY
      `region`
  ) AS raw_0
  UNION
  SELECT
    v,
    COALESCE(CAST(`__disco_x` AS STRING), 'Missing') AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      `region` AS v,
      MIN(`region`) AS `__disco_x`
    FROM `survey`.`syn_1` AS __disco_s
    WHERE
      NOT `region` IS NULL
    GROUP BY
      `region`
  ) AS raw_1
  UNION
  SELECT
    v,
    COALESCE(CAST(`__disco_x` AS STRING), 'Missing') AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      `region` AS v,
      MIN(`region`) AS `__disco_x`
    FROM `survey`.`syn_2` AS __disco_s
    WHERE
      NOT `region` IS NULL
    GROUP BY
      `region`
  ) AS raw_2
  UNION
  SELECT
    NULL AS v,
    'Missing' AS level
), one_per_value AS (
  /* the same value may come from several data sets (as 0.0 in one, -0.0 in another) */
  SELECT
    v,
    MIN(level) AS level
  FROM named
  GROUP BY
    v
)
SELECT
  v,
  level,
  CAST(CASE
    WHEN level = 'Missing'
    THEN 0
    ELSE DENSE_RANK() OVER (
      PARTITION BY CASE WHEN level = 'Missing' THEN 1 ELSE 0 END
      ORDER BY level NULLS LAST
    )
  END AS BIGINT) AS code /* BIGINT where it is made: dense_rank() is a 32-bit INT on Spark, a DECIMAL elsewhere */
FROM one_per_value;

DROP TABLE IF EXISTS `__disco_levels_k3`;

-- stages/010_codes.sql.j2
-- Stage 010 codes: the level dictionary of one column (a key or a target). Every distinct raw
-- value in the original and the syntheses gets its level name (synthpop's factor levels, as
-- macros/levels) and an integer code: 0 for 'Missing' (NA, NaN, a genuine 'Missing'), 1..n for
-- the other names in byte order. Later stages count and join small integers, and turn codes
-- back into names only in the few rows of the checks.
-- Context: column = {name, grouping, as_text} (as_text: the column's engine types differ
--          between data sets, e.g. BIGINT and DOUBLE, so raw values are matched by their text,
--          not by a lossy union); sources = [{src, sql, kinds}] (data sets where the column
--          has values); na_only_missing: only NA and NaN get code 0, and a genuine text
--          'Missing' gets a code of its own (replicated uniques compare values).
-- Output:  v (a raw value, or its text), level VARCHAR, code BIGINT. One row per distinct v,
--          plus (NULL, 'Missing', 0) so that 'Missing' always has a name; NULL raw values never
--          match v, their code is 0.
-- synthpop: D:197-262 (factor(), grouping, "Missing").

CREATE TABLE `__disco_levels_k3` AS
WITH named AS (
  SELECT
    v,
    COALESCE(CAST(`__disco_x` AS STRING), 'Missing') AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      `placesize` AS v,
      MIN(`placesize`) AS `__disco_x`
    FROM `survey`.`sd2011` AS __disco_s
    WHERE
      NOT `placesize` IS NULL
    GROUP BY
      `placesize`
  ) AS raw_0
  UNION
  SELECT
    v,
    COALESCE(CAST(`__disco_x` AS STRING), 'Missing') AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      `placesize` AS v,
      MIN(`placesize`) AS `__disco_x`
    FROM `survey`.`syn_1` AS __disco_s
    WHERE
      NOT `placesize` IS NULL
    GROUP BY
      `placesize`
  ) AS raw_1
  UNION
  SELECT
    v,
    COALESCE(CAST(`__disco_x` AS STRING), 'Missing') AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      `placesize` AS v,
      MIN(`placesize`) AS `__disco_x`
    FROM `survey`.`syn_2` AS __disco_s
    WHERE
      NOT `placesize` IS NULL
    GROUP BY
      `placesize`
  ) AS raw_2
  UNION
  SELECT
    NULL AS v,
    'Missing' AS level
), one_per_value AS (
  /* the same value may come from several data sets (as 0.0 in one, -0.0 in another) */
  SELECT
    v,
    MIN(level) AS level
  FROM named
  GROUP BY
    v
)
SELECT
  v,
  level,
  CAST(CASE
    WHEN level = 'Missing'
    THEN 0
    ELSE DENSE_RANK() OVER (
      PARTITION BY CASE WHEN level = 'Missing' THEN 1 ELSE 0 END
      ORDER BY level NULLS LAST
    )
  END AS BIGINT) AS code /* BIGINT where it is made: dense_rank() is a 32-bit INT on Spark, a DECIMAL elsewhere */
FROM one_per_value;

DROP TABLE IF EXISTS `__disco_levels_t0`;

-- stages/010_codes.sql.j2
-- Stage 010 codes: the level dictionary of one column (a key or a target). Every distinct raw
-- value in the original and the syntheses gets its level name (synthpop's factor levels, as
-- macros/levels) and an integer code: 0 for 'Missing' (NA, NaN, a genuine 'Missing'), 1..n for
-- the other names in byte order. Later stages count and join small integers, and turn codes
-- back into names only in the few rows of the checks.
-- Context: column = {name, grouping, as_text} (as_text: the column's engine types differ
--          between data sets, e.g. BIGINT and DOUBLE, so raw values are matched by their text,
--          not by a lossy union); sources = [{src, sql, kinds}] (data sets where the column
--          has values); na_only_missing: only NA and NaN get code 0, and a genuine text
--          'Missing' gets a code of its own (replicated uniques compare values).
-- Output:  v (a raw value, or its text), level VARCHAR, code BIGINT. One row per distinct v,
--          plus (NULL, 'Missing', 0) so that 'Missing' always has a name; NULL raw values never
--          match v, their code is 0.
-- synthpop: D:197-262 (factor(), grouping, "Missing").

CREATE TABLE `__disco_levels_t0` AS
WITH named AS (
  SELECT
    v,
    CASE
      WHEN `__disco_x` IS NULL OR ISNAN(CAST(`__disco_x` AS DOUBLE))
      THEN 'Missing'
      WHEN CAST(`__disco_x` AS DOUBLE) < CAST('600.0' AS DOUBLE)
      THEN '[-8,600)'
      WHEN CAST(`__disco_x` AS DOUBLE) < CAST('1000.0' AS DOUBLE)
      THEN '[600,1000)'
      WHEN CAST(`__disco_x` AS DOUBLE) < CAST('1440.0' AS DOUBLE)
      THEN '[1000,1440)'
      WHEN CAST(`__disco_x` AS DOUBLE) < CAST('2000.0' AS DOUBLE)
      THEN '[1440,2000)'
      ELSE '[2000,16000]'
    END AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      `income` AS v,
      MIN(`income`) AS `__disco_x`
    FROM `survey`.`sd2011` AS __disco_s
    WHERE
      NOT `income` IS NULL
    GROUP BY
      `income`
  ) AS raw_0
  UNION
  SELECT
    v,
    CASE
      WHEN `__disco_x` IS NULL OR ISNAN(CAST(`__disco_x` AS DOUBLE))
      THEN 'Missing'
      WHEN CAST(`__disco_x` AS DOUBLE) < CAST('600.0' AS DOUBLE)
      THEN '[-8,600)'
      WHEN CAST(`__disco_x` AS DOUBLE) < CAST('1000.0' AS DOUBLE)
      THEN '[600,1000)'
      WHEN CAST(`__disco_x` AS DOUBLE) < CAST('1440.0' AS DOUBLE)
      THEN '[1000,1440)'
      WHEN CAST(`__disco_x` AS DOUBLE) < CAST('2000.0' AS DOUBLE)
      THEN '[1440,2000)'
      ELSE '[2000,16000]'
    END AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      `income` AS v,
      MIN(`income`) AS `__disco_x`
    FROM `survey`.`syn_1` AS __disco_s
    WHERE
      NOT `income` IS NULL
    GROUP BY
      `income`
  ) AS raw_1
  UNION
  SELECT
    v,
    CASE
      WHEN `__disco_x` IS NULL OR ISNAN(CAST(`__disco_x` AS DOUBLE))
      THEN 'Missing'
      WHEN CAST(`__disco_x` AS DOUBLE) < CAST('600.0' AS DOUBLE)
      THEN '[-8,600)'
      WHEN CAST(`__disco_x` AS DOUBLE) < CAST('1000.0' AS DOUBLE)
      THEN '[600,1000)'
      WHEN CAST(`__disco_x` AS DOUBLE) < CAST('1440.0' AS DOUBLE)
      THEN '[1000,1440)'
      WHEN CAST(`__disco_x` AS DOUBLE) < CAST('2000.0' AS DOUBLE)
      THEN '[1440,2000)'
      ELSE '[2000,16000]'
    END AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      `income` AS v,
      MIN(`income`) AS `__disco_x`
    FROM `survey`.`syn_2` AS __disco_s
    WHERE
      NOT `income` IS NULL
    GROUP BY
      `income`
  ) AS raw_2
  UNION
  SELECT
    NULL AS v,
    'Missing' AS level
), one_per_value AS (
  /* the same value may come from several data sets (as 0.0 in one, -0.0 in another) */
  SELECT
    v,
    MIN(level) AS level
  FROM named
  GROUP BY
    v
)
SELECT
  v,
  level,
  CAST(CASE
    WHEN level = 'Missing'
    THEN 0
    ELSE DENSE_RANK() OVER (
      PARTITION BY CASE WHEN level = 'Missing' THEN 1 ELSE 0 END
      ORDER BY level NULLS LAST
    )
  END AS BIGINT) AS code /* BIGINT where it is made: dense_rank() is a 32-bit INT on Spark, a DECIMAL elsewhere */
FROM one_per_value;

DROP TABLE IF EXISTS `__disco_guard`;

-- stages/015_export_guard.sql.j2
-- Stage 015 export guard (exported scripts only): stop when the data the script runs on break
-- a decision made from the data at export time, instead of printing numbers for other data.
-- Runs after the stage 010 dictionaries; stage 020 reads the guard table, so when a check
-- stops this statement every later statement fails too (in a shell that goes on after an
-- error) and no result is printed.
-- Context: checks = [{kind, message, ...}], one per decision:
--          same     {sql, columns, rows}: the query a grouping was computed from (grouping/
--                   stats, order_stats, distinct) returns exactly the rows it returned then
--                   (rows: parameter names, one list per row; each query's rows are
--                   distinct); the same inputs give the same breaks and labels;
--          positive {sql, columns}: every named column of the query's one row is > 0 (a
--                   cont_na code still occurs);
--          fits     {levels, limit}: every code of the dictionary is below $limit (the key's
--                   radix in the q packing, or the capacity of a target's code type);
--          present  {levels, level}: $level is a level of the dictionary (a level named in
--                   not_targetlev or exclude_*).
-- Output:  one row of NULL INTEGER columns ok_0 .. ok_{C-1}, or the error of the first failing
--          check: its $message followed by the number of offending rows or codes.
-- synthpop: none (synthpop computes from the data it is given; a script is written ahead).

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
  FROM `__disco_levels_k0`
  WHERE
    code >= 3
) AS `c_2`
CROSS JOIN (
  SELECT
    COUNT(*) AS bad
  FROM `__disco_levels_k1`
  WHERE
    code >= 80
) AS `c_3`
CROSS JOIN (
  SELECT
    COUNT(*) AS bad
  FROM `__disco_levels_k2`
  WHERE
    code >= 17
) AS `c_4`
CROSS JOIN (
  SELECT
    COUNT(*) AS bad
  FROM `__disco_levels_k3`
  WHERE
    code >= 7
) AS `c_5`
CROSS JOIN (
  SELECT
    COUNT(*) AS bad
  FROM `__disco_levels_t0`
  WHERE
    code >= 32768
) AS `c_6`
CROSS JOIN (
  SELECT
    CASE WHEN COUNT(*) = 0 THEN 1 ELSE 0 END AS bad
  FROM `__disco_levels_t0`
  WHERE
    level = '[-8,600)'
) AS `c_7`
CROSS JOIN (
  SELECT
    CASE WHEN COUNT(*) = 0 THEN 1 ELSE 0 END AS bad
  FROM `__disco_levels_t0`
  WHERE
    level = '[1440,2000)'
) AS `c_8`
CROSS JOIN (
  SELECT
    CASE WHEN COUNT(*) = 0 THEN 1 ELSE 0 END AS bad
  FROM `__disco_levels_k0`
  WHERE
    level = 'MALE'
) AS `c_9`;

DROP TABLE IF EXISTS `__disco_cells_base`;

-- stages/030_cells.sql.j2
-- Stage 030 cells: the (synthesis, q, t) count table of one target, original and synthetic
-- side by side.
-- Inputs:  the records of stage 020 (a table when several targets share them, else inline);
--          target = {alias} (its code column); qcols = [q_0 ..]; syntheses = [1..m].
-- Output:  j INTEGER (synthesis), q_0 .., t BIGINT (target code), d BIGINT (original count
--          d_tq), s BIGINT (synthetic count s_tq); one row per cell with d > 0 or s > 0.
-- How:     one aggregation of the records by (q, t) counts the original and every synthesis
--          at once (no join of count tables); with m > 1 the original counts are repeated for
--          every synthesis. No WITH: stage 040 inlines this query as its first CTE (the cells
--          are never stored), and T-SQL does not nest WITH. Cells are matched by level code, i.e. by level name (fixes
--          synthpop's quirk Q0).
-- synthpop: tab_ktd / tab_kts and their union of rows and columns (D:282-337).

CREATE TABLE `__disco_cells_base` AS
SELECT
  j,
  `q_0`,
  t,
  d,
  s
FROM (
  SELECT
    x.j,
    c.`q_0`,
    c.t,
    c.d,
    CASE x.j WHEN 1 THEN c.`s_1` WHEN 2 THEN c.`s_2` END AS s
  FROM (
    SELECT
      `q_0`,
      `t_0` AS t,
      COUNT(CASE WHEN src = 0 THEN 1 END) AS d,
      COUNT(CASE WHEN src = 1 THEN 1 END) AS `s_1`,
      COUNT(CASE WHEN src = 2 THEN 1 END) AS `s_2`
    FROM (
      SELECT
        x.src,
        CAST(CAST(COALESCE(__disco_k0.code, 0) AS BIGINT) * CAST(1 AS BIGINT) + CAST(COALESCE(__disco_k1.code, 0) AS BIGINT) * CAST(3 AS BIGINT) + CAST(COALESCE(__disco_k2.code, 0) AS BIGINT) * CAST(240 AS BIGINT) + CAST(COALESCE(__disco_k3.code, 0) AS BIGINT) * CAST(4080 AS BIGINT) AS BIGINT) AS `q_0`,
        CAST(COALESCE(__disco_t0.code, 0) AS SMALLINT) AS `t_0`
      FROM (
        SELECT
          CAST(0 AS SMALLINT) AS src,
          __disco_x.`sex` AS __disco_k0,
          __disco_x.`age` AS __disco_k1,
          __disco_x.`region` AS __disco_k2,
          __disco_x.`placesize` AS __disco_k3,
          __disco_x.`income` AS __disco_t0
        FROM `survey`.`sd2011` AS __disco_x
        /* stage 015's table: when an export-time decision no longer holds it was never created */
        CROSS JOIN `__disco_guard`
        UNION ALL
        SELECT
          CAST(1 AS SMALLINT) AS src,
          __disco_x.`sex` AS __disco_k0,
          __disco_x.`age` AS __disco_k1,
          __disco_x.`region` AS __disco_k2,
          __disco_x.`placesize` AS __disco_k3,
          __disco_x.`income` AS __disco_t0
        FROM `survey`.`syn_1` AS __disco_x
        /* stage 015's table: when an export-time decision no longer holds it was never created */
        CROSS JOIN `__disco_guard`
        UNION ALL
        SELECT
          CAST(2 AS SMALLINT) AS src,
          __disco_x.`sex` AS __disco_k0,
          __disco_x.`age` AS __disco_k1,
          __disco_x.`region` AS __disco_k2,
          __disco_x.`placesize` AS __disco_k3,
          __disco_x.`income` AS __disco_t0
        FROM `survey`.`syn_2` AS __disco_x
        /* stage 015's table: when an export-time decision no longer holds it was never created */
        CROSS JOIN `__disco_guard`
      ) AS x
      LEFT JOIN `__disco_levels_k0` AS __disco_k0
        ON __disco_k0.v = x.__disco_k0
      LEFT JOIN `__disco_levels_k1` AS __disco_k1
        ON __disco_k1.v = x.__disco_k1
      LEFT JOIN `__disco_levels_k2` AS __disco_k2
        ON __disco_k2.v = x.__disco_k2
      LEFT JOIN `__disco_levels_k3` AS __disco_k3
        ON __disco_k3.v = x.__disco_k3
      LEFT JOIN `__disco_levels_t0` AS __disco_t0
        ON __disco_t0.v = x.__disco_t0
    ) AS records
    GROUP BY
      `q_0`,
      `t_0`
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
  d > 0 OR s > 0;

DROP TABLE IF EXISTS `__disco_cells`;

-- stages/040_cell_flags.sql.j2
-- Stage 040 cell flags: disclosiveness (decided BEFORE exclusions), the exclusion step of every
-- cell, and the counts that survive the exclusions.
-- Inputs:  cells (stage 030): j, q columns (qcols), t, d, s; keys and target say how to read
--          a key's level and a named level (macros/cells). With cells_sql (engines that
--          pipeline a CTE: Engine.inline_cells) the cells are that query, inlined as the CTE
--          `cells`: one statement counts and flags them, and the base cells are never stored.
-- Context: not_targetlevs  [param names]   step 1 "excluded target"
--          drop_missing_target (bool)       step 2 "missing target", only if the ORIGINAL has 'Missing'
--          keys_no_na      [keys]           step 3 "missing in keys"
--          excludes        [{key, keylev, targetlev}] step 4 "set to exclude"
--          exclude_ov (bool)                step 5 "over denom_lim": each table's OWN count > denom_lim
-- Params:  $denom_lim; the levels named by not_targetlevs and excludes
-- Output:  j, q columns, t, d, s, dq = d.q, sq = s.q (before exclusions),
--          orig_dis  pd_tq = 1            (Dorig cells)
--          syn_dis   ps_tq = 1, s.q > 0   (Dsyn and DiSCO cells)
--          in_syn    s.q > 0              (iS)
--          q_syn_dis some ps_t'q = 1     (DiS)
--          step_d, step_s: 0 kept, 1..4 the first exclusion step that applies, 5 over denom_lim
--                    (by the original resp. synthetic count)
--          d_keep, s_keep: d and s after exclusions; dq_keep, sq_keep: their q margins.
-- Types:   counts stay BIGINT (a SUM of BIGINT is a wider type in DuckDB and PostgreSQL, and
--          slower to carry through every measure).
-- How:     the exclusion step of a cell depends only on its levels and its own counts, so it is
--          decided first; then one GROUP BY q gives every margin (before and after exclusions)
--          and one join brings them back to the cells (cheaper than window functions).
-- synthpop: D:342-371 (tables), D:374-466 (tab_exclude, recomputed margins).

CREATE TABLE `__disco_cells` AS
WITH reasons AS (
  SELECT
    j,
    `q_0`,
    t,
    d,
    s,
    CASE
      WHEN t = (
        SELECT
          MAX(code)
        FROM `__disco_levels_t0`
        WHERE
          level = '[-8,600)'
      )
      THEN 1
      WHEN (
        CAST((
          CAST(`q_0` AS BIGINT) DIV CAST(240 AS BIGINT)
        ) AS BIGINT) % CAST(17 AS BIGINT)
      ) = 0
      THEN 3
      WHEN t = (
        SELECT
          MAX(code)
        FROM `__disco_levels_t0`
        WHERE
          level = '[1440,2000)'
      )
      AND (
        CAST((
          CAST(`q_0` AS BIGINT) DIV CAST(1 AS BIGINT)
        ) AS BIGINT) % CAST(3 AS BIGINT)
      ) = (
        SELECT
          MAX(code)
        FROM `__disco_levels_k0`
        WHERE
          level = 'MALE'
      )
      THEN 4
      ELSE 0
    END AS reason
  FROM `__disco_cells_base`
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
), margins AS (
  SELECT
    j,
    `q_0`,
    CAST(SUM(d) AS BIGINT) AS dq,
    CAST(SUM(s) AS BIGINT) AS sq,
    COUNT(CASE WHEN s > 0 THEN 1 END) AS s_levels,
    CAST(SUM(d_keep) AS BIGINT) AS dq_keep,
    CAST(SUM(s_keep) AS BIGINT) AS sq_keep
  FROM kept
  GROUP BY
    j,
    `q_0`
)
SELECT
  c.j,
  c.`q_0`,
  c.t,
  c.d,
  c.s,
  m.dq,
  m.sq,
  CASE WHEN c.d > 0 AND c.d = m.dq THEN 1 ELSE 0 END AS orig_dis,
  CASE WHEN c.s > 0 AND c.s = m.sq THEN 1 ELSE 0 END AS syn_dis,
  CASE WHEN m.sq > 0 THEN 1 ELSE 0 END AS in_syn,
  CASE WHEN m.s_levels = 1 THEN 1 ELSE 0 END AS q_syn_dis,
  c.step_d,
  c.step_s,
  c.d_keep,
  c.s_keep,
  m.dq_keep,
  m.sq_keep
FROM kept AS c
INNER JOIN margins AS m
  ON m.j = c.j AND m.`q_0` = c.`q_0`;

-- measures/identity.sql.j2
-- Identity disclosure measures, one row per synthesis (percentages).
-- Inputs: flagged cells (stage 040).  Nd = sum(d), Ns = sum(s) (before exclusions, as synthpop).
-- Output: synthesis, UiO, UiS, UiOiS, repU
--   UiO   = 100 * #{q : d'.q = 1} / Nd                          unique in the original
--   UiS   = 100 * #{q : s'.q = 1} / Ns                          unique in the synthesis
--   UiOiS = 100 * #{q : d'.q = 1, s.q > 0 before exclusions} / Nd
--   repU  = 100 * #{q : d'.q = 1 and s'.q = 1} / Nd             replicated uniques
-- (d'.q, s'.q: q margins after exclusions; a q with d'.q = 1 has exactly one cell with d' = 1,
-- so counting such cells counts the q values.)  synthpop: D:454-473.

SELECT
  j AS synthesis,
  CASE
    WHEN SUM(d) = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(SUM(CASE WHEN d_keep = 1 AND dq_keep = 1 THEN 1 ELSE 0 END) AS DOUBLE) / CAST(SUM(d) AS DOUBLE)
  END AS `UiO`,
  CASE
    WHEN SUM(s) = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(SUM(CASE WHEN s_keep = 1 AND sq_keep = 1 THEN 1 ELSE 0 END) AS DOUBLE) / CAST(SUM(s) AS DOUBLE)
  END AS `UiS`,
  CASE
    WHEN SUM(d) = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(SUM(CASE WHEN d_keep = 1 AND dq_keep = 1 AND in_syn = 1 THEN 1 ELSE 0 END) AS DOUBLE) / CAST(SUM(d) AS DOUBLE)
  END AS `UiOiS`,
  CASE
    WHEN SUM(d) = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(SUM(CASE WHEN d_keep = 1 AND dq_keep = 1 AND sq_keep = 1 THEN 1 ELSE 0 END) AS DOUBLE) / CAST(SUM(d) AS DOUBLE)
  END AS `repU`
FROM `__disco_cells`
GROUP BY
  j
ORDER BY
  j NULLS LAST;

-- measures/attribute.sql.j2
-- Attribute disclosure measures, one row per synthesis (percentages, except the denominators).
-- Inputs: flagged cells (stage 040). Disclosive flags are pre-exclusion, counts post-exclusion.
-- Output: synthesis, Dorig, Dsyn, iS, DiS, DiSCO, DiSDiO, max_denom, mean_denom
--   Dorig  = 100 * sum(d' : pd_tq = 1) / Nd
--   Dsyn   = 100 * sum(s' : ps_tq = 1) / Ns
--   iS     = 100 * sum(d' : s.q > 0) / Nd
--   DiS    = 100 * sum(d' : some ps_t'q = 1) / Nd
--   DiSCO  = 100 * sum(d' : ps_tq = 1) / Nd
--   DiSDiO = 100 * sum(d' : ps_tq = 1 and pd_tq = 1) / Nd
--   max_denom  = max d' over DiSCO cells (0 if none)
--   mean_denom = mean d' over DiSCO cells with d' > 0 (NaN if none)
-- synthpop: D:477-484.

SELECT
  j AS synthesis,
  CASE
    WHEN SUM(d) = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(SUM(orig_dis * d_keep) AS DOUBLE) / CAST(SUM(d) AS DOUBLE)
  END AS `Dorig`,
  CASE
    WHEN SUM(s) = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(SUM(syn_dis * s_keep) AS DOUBLE) / CAST(SUM(s) AS DOUBLE)
  END AS `Dsyn`,
  CASE
    WHEN SUM(d) = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(SUM(in_syn * d_keep) AS DOUBLE) / CAST(SUM(d) AS DOUBLE)
  END AS `iS`,
  CASE
    WHEN SUM(d) = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(SUM(q_syn_dis * d_keep) AS DOUBLE) / CAST(SUM(d) AS DOUBLE)
  END AS `DiS`,
  CASE
    WHEN SUM(d) = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(SUM(syn_dis * d_keep) AS DOUBLE) / CAST(SUM(d) AS DOUBLE)
  END AS `DiSCO`,
  CASE
    WHEN SUM(d) = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(SUM(syn_dis * orig_dis * d_keep) AS DOUBLE) / CAST(SUM(d) AS DOUBLE)
  END AS `DiSDiO`,
  CAST(MAX(syn_dis * d_keep) AS DOUBLE) AS max_denom,
  COALESCE(
    AVG(CASE WHEN syn_dis = 1 AND d_keep > 0 THEN CAST(d_keep AS DOUBLE) END),
    CAST('NaN' AS DOUBLE)
  ) AS mean_denom
FROM `__disco_cells`
GROUP BY
  j
ORDER BY
  j NULLS LAST;

-- measures/cap.sql.j2
-- CAP (correct attribution probability) measures, one row per synthesis (percentages).
-- Sums of fractions use exact_sum, so the numbers do not depend on thread or engine order.
-- Inputs: flagged cells (stage 040); pd'_tq = d'_tq / d'.q, ps'_tq = s'_tq / s'.q (0 if the margin is 0).
-- Output: synthesis, baseCAPd, CAPd, CAPs, DCAP, TCAP
--   baseCAPd = 100 * sum_t (d_t. / Nd)^2        target margins BEFORE exclusions, 'Missing' included
--   CAPd     = 100 * sum_tq d'_tq * pd'_tq / Nd
--   CAPs     = 100 * sum_tq s'_tq * ps'_tq / Ns
--   DCAP     = 100 * sum_tq d'_tq * ps'_tq / Nd
--   TCAP     = 100 * sum(d' : ps_tq = 1) / sum_{q : s'.q > 0} d'.q   (= DiSCO / iS; NaN if 0/0)
-- synthpop: D:489-502.

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
    SUM(d) AS nd,
    SUM(s) AS ns,
    CAST(SUM(
      CAST(CASE WHEN dq_keep > 0 THEN CAST(d_keep AS DOUBLE) * d_keep / dq_keep ELSE 0 END AS DECIMAL(38, 18))
    ) AS DOUBLE) AS capd,
    CAST(SUM(
      CAST(CASE WHEN sq_keep > 0 THEN CAST(s_keep AS DOUBLE) * s_keep / sq_keep ELSE 0 END AS DECIMAL(38, 18))
    ) AS DOUBLE) AS caps,
    CAST(SUM(
      CAST(CASE WHEN sq_keep > 0 THEN CAST(d_keep AS DOUBLE) * s_keep / sq_keep ELSE 0 END AS DECIMAL(38, 18))
    ) AS DOUBLE) AS dcap,
    SUM(syn_dis * d_keep) AS disco,
    SUM(CASE WHEN sq_keep > 0 THEN d_keep ELSE 0 END) AS tcap_den
  FROM `__disco_cells`
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
  END AS `TCAP`
FROM cap
INNER JOIN base
  ON base.j = cap.j
ORDER BY
  cap.j NULLS LAST;

-- measures/exclusions.sql.j2
-- Exclusion bookkeeping: synthpop's Nexclusions, in long form.
-- Inputs: flagged cells (stage 040): step_d / step_s say at which step a cell left the original /
--         synthetic based tables (0 = kept).
-- Output: synthesis, table, reason, count -- for each synthesis, each of the 8 tables
--         (original, synthetic, Dorig, Dsyn, iS, DiS, DiSCO, DiSDiO) and each step
--         (excluded target, missing target, missing in keys, set to exclude, over denom_lim,
--         remaining): the records of that table removed at that step, or kept ("remaining").
-- synthpop: D:374-450 (tab_exclude applied to every table separately).

WITH tables AS (
  /* side: whether the table's records are original (by step_d) or synthetic (by step_s) */
  SELECT
    1 AS tpos,
    'original' AS tbl,
    'd' AS side
  UNION ALL
  SELECT
    2,
    'synthetic',
    's'
  UNION ALL
  SELECT
    3,
    'Dorig',
    'd'
  UNION ALL
  SELECT
    4,
    'Dsyn',
    's'
  UNION ALL
  SELECT
    5,
    'iS',
    'd'
  UNION ALL
  SELECT
    6,
    'DiS',
    'd'
  UNION ALL
  SELECT
    7,
    'DiSCO',
    'd'
  UNION ALL
  SELECT
    8,
    'DiSDiO',
    'd'
), reasons AS (
  SELECT
    1 AS step,
    1 AS rpos,
    'excluded target' AS reason
  UNION ALL
  SELECT
    2,
    2,
    'missing target'
  UNION ALL
  SELECT
    3,
    3,
    'missing in keys'
  UNION ALL
  SELECT
    4,
    4,
    'set to exclude'
  UNION ALL
  SELECT
    5,
    5,
    'over denom_lim'
  UNION ALL
  SELECT
    0,
    6,
    'remaining'
), by_d /* one pass over the cells per side: every table's count of each step at once */ AS (
  SELECT
    j,
    step_d AS step,
    SUM(d) AS n_1,
    SUM(orig_dis * d) AS n_3,
    SUM(in_syn * d) AS n_5,
    SUM(q_syn_dis * d) AS n_6,
    SUM(syn_dis * d) AS n_7,
    SUM(syn_dis * orig_dis * d) AS n_8
  FROM `__disco_cells`
  GROUP BY
    j,
    step_d
), by_s AS (
  SELECT
    j,
    step_s AS step,
    SUM(s) AS n_2,
    SUM(syn_dis * s) AS n_4
  FROM `__disco_cells`
  GROUP BY
    j,
    step_s
), counts AS (
  SELECT
    by_d.j,
    tables.tpos,
    by_d.step,
    CASE tables.tpos
      WHEN 1
      THEN n_1
      WHEN 3
      THEN n_3
      WHEN 5
      THEN n_5
      WHEN 6
      THEN n_6
      WHEN 7
      THEN n_7
      WHEN 8
      THEN n_8
    END AS n
  FROM by_d
  INNER JOIN tables
    ON tables.side = 'd'
  UNION ALL
  SELECT
    by_s.j,
    tables.tpos,
    by_s.step,
    CASE tables.tpos WHEN 2 THEN n_2 WHEN 4 THEN n_4 END AS n
  FROM by_s
  INNER JOIN tables
    ON tables.side = 's'
), syntheses AS (
  SELECT DISTINCT
    j
  FROM by_d
)
SELECT
  x.j AS synthesis,
  tables.tbl AS `table`,
  reasons.reason,
  CAST(COALESCE(counts.n, 0) AS BIGINT) AS `count`
FROM syntheses AS x
CROSS JOIN tables
CROSS JOIN reasons
LEFT JOIN counts
  ON counts.j = x.j AND counts.tpos = tables.tpos AND counts.step = reasons.step
ORDER BY
  x.j NULLS LAST,
  tables.tpos NULLS LAST,
  reasons.rpos NULLS LAST;

-- checks/check_1way.sql.j2
-- check_1way: is one target level dominating the DiSCO records? One row per synthesis where it fires.
-- Inputs: flagged cells (stage 040); after exclusions. target: how to name a level (macros/cells).
-- Params: $thresh_1way_n, $thresh_1way_pct.
-- Output: synthesis, Level, All, PctLevelAll, totalDisclosive, nLevelDis, PctLevelDis
--   Level       = the level with most DiSCO records (ties: smallest level name)
--   nLevelDis   = its DiSCO records;  totalDisclosive = all DiSCO records
--   PctLevelDis = 100 * nLevelDis / totalDisclosive
--   All         = original records after exclusions; PctLevelAll = 100 * (records of Level) / All
-- Fires iff nLevelDis > $thresh_1way_n and PctLevelDis > $thresh_1way_pct (both strict).
-- synthpop: D:509-525.

WITH by_level AS (
  SELECT
    j,
    t,
    SUM(d_keep) AS n_all,
    SUM(syn_dis * d_keep) AS n_dis
  FROM `__disco_cells`
  GROUP BY
    j,
    t
), named AS (
  SELECT
    b.j,
    n.level AS t,
    b.n_all,
    b.n_dis
  FROM by_level AS b
  INNER JOIN (
    SELECT DISTINCT
      code,
      level
    FROM `__disco_levels_t0`
  ) AS n
    ON n.code = b.t
), ranked AS (
  SELECT
    j,
    t,
    n_all,
    n_dis,
    SUM(n_all) OVER (PARTITION BY j) AS total_all,
    SUM(n_dis) OVER (PARTITION BY j) AS total_dis,
    ROW_NUMBER() OVER (PARTITION BY j ORDER BY n_dis DESC, t NULLS LAST) AS rank_dis
  FROM named
)
SELECT
  j AS synthesis,
  t AS `Level`,
  CAST(total_all AS BIGINT) AS `All`,
  CASE
    WHEN total_all = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(n_all AS DOUBLE) / CAST(total_all AS DOUBLE)
  END AS `PctLevelAll`,
  CAST(total_dis AS BIGINT) AS `totalDisclosive`,
  CAST(n_dis AS BIGINT) AS `nLevelDis`,
  CASE
    WHEN total_dis = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(n_dis AS DOUBLE) / CAST(total_dis AS DOUBLE)
  END AS `PctLevelDis`
FROM ranked
WHERE
  rank_dis = 1
  AND n_dis > CAST('50.0' AS DOUBLE)
  AND total_dis > 0
  AND 100 * CAST(n_dis AS DOUBLE) / CAST(total_dis AS DOUBLE) > CAST('90.0' AS DOUBLE)
ORDER BY
  j NULLS LAST;

-- checks/check_2way.sql.j2
-- check_2way: (target level, key level) pairs that carry many DiSCO records and where the key level
-- almost determines the target in the original.
-- Inputs: flagged cells (stage 040); target and keys say how to read and name levels
--         (macros/cells).
-- Params: $thresh_2way_n, $thresh_2way_pct; the key names (keys[].name_param).
-- Context: keys = [{..., name_param}]. Only cells with original records are read: with
--         $thresh_2way_n >= 0 (spec.py refuses a negative count) no other cell can count, and
--         they are many.
-- Output: synthesis, target_key_levs ("<target level>|<key level>"), npairs, key,
--         key_target_total, key_total, PctTargetKeyLevel
--   npairs            = DiSCO records (after exclusions) in cells with more than $thresh_2way_n
--                       of them, summed per (target level, key level)
--   key_total         = original records with that key level (ALL records, before exclusions)
--   key_target_total  = of those, records with that target level
--   PctTargetKeyLevel = 100 * key_target_total / key_total; rows kept iff npairs > 0 and
--                       PctTargetKeyLevel > $thresh_2way_pct.
-- How:    the cells are read once and unpivoted by key (one row per cell and key, with that
--         key's level decoded from q); one aggregation by (key, key level, target level) then
--         gives every key's totals and pairs at once. A big cell has d' > $thresh_2way_n >= 0,
--         so npairs > 0 exactly where the pair has one.
-- Order: npairs descending, then key position, then target_key_levs.  synthpop: D:530-572.

WITH by_key AS (
  SELECT
    c.j,
    k.key_pos,
    CASE k.key_pos
      WHEN 0
      THEN (
        CAST((
          CAST(c.`q_0` AS BIGINT) DIV CAST(1 AS BIGINT)
        ) AS BIGINT) % CAST(3 AS BIGINT)
      )
      WHEN 1
      THEN (
        CAST((
          CAST(c.`q_0` AS BIGINT) DIV CAST(3 AS BIGINT)
        ) AS BIGINT) % CAST(80 AS BIGINT)
      )
      WHEN 2
      THEN (
        CAST((
          CAST(c.`q_0` AS BIGINT) DIV CAST(240 AS BIGINT)
        ) AS BIGINT) % CAST(17 AS BIGINT)
      )
      WHEN 3
      THEN (
        CAST((
          CAST(c.`q_0` AS BIGINT) DIV CAST(4080 AS BIGINT)
        ) AS BIGINT) % CAST(7 AS BIGINT)
      )
    END AS key_level,
    c.t,
    c.d,
    CASE WHEN c.syn_dis * c.d_keep > CAST('4.0' AS DOUBLE) THEN c.d_keep ELSE 0 END AS big
  FROM `__disco_cells` AS c
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
    c.d > 0
), key_target AS (
  SELECT
    j,
    key_pos,
    key_level,
    t,
    SUM(d) AS key_target_total,
    SUM(big) AS npairs
  FROM by_key
  GROUP BY
    j,
    key_pos,
    key_level,
    t
), pairs AS (
  SELECT
    j,
    key_pos,
    key_level,
    t,
    npairs,
    key_target_total,
    SUM(key_target_total) OVER (PARTITION BY j, key_pos, key_level) AS key_total
  FROM key_target
), key_names AS (
  SELECT DISTINCT
    0 AS key_pos,
    code,
    level
  FROM `__disco_levels_k0`
  UNION ALL
  SELECT DISTINCT
    1 AS key_pos,
    code,
    level
  FROM `__disco_levels_k1`
  UNION ALL
  SELECT DISTINCT
    2 AS key_pos,
    code,
    level
  FROM `__disco_levels_k2`
  UNION ALL
  SELECT DISTINCT
    3 AS key_pos,
    code,
    level
  FROM `__disco_levels_k3`
), flagged AS (
  SELECT
    p.j AS synthesis,
    p.key_pos,
    nt.level || '|' || kn.level AS target_key_levs,
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
    END AS `key`,
    CAST(p.key_target_total AS BIGINT) AS key_target_total,
    CAST(p.key_total AS BIGINT) AS key_total,
    CASE
      WHEN p.key_total = 0
      THEN CAST('NaN' AS DOUBLE)
      ELSE 100 * CAST(p.key_target_total AS DOUBLE) / CAST(p.key_total AS DOUBLE)
    END AS `PctTargetKeyLevel`
  FROM pairs AS p
  INNER JOIN (
    SELECT DISTINCT
      code,
      level
    FROM `__disco_levels_t0`
  ) AS nt
    ON nt.code = p.t
  INNER JOIN key_names AS kn
    ON kn.key_pos = p.key_pos AND kn.code = p.key_level
  WHERE
    p.npairs > 0
    AND 100 * CAST(p.key_target_total AS DOUBLE) / CAST(p.key_total AS DOUBLE) > CAST('80.0' AS DOUBLE)
)
SELECT
  synthesis,
  target_key_levs,
  npairs,
  `key`,
  key_target_total,
  key_total,
  `PctTargetKeyLevel`
FROM flagged
ORDER BY
  synthesis NULLS LAST,
  npairs DESC,
  key_pos NULLS LAST,
  target_key_levs NULLS LAST;

DROP TABLE IF EXISTS `__disco_cells`;

DROP TABLE IF EXISTS `__disco_cells_base`;

DROP TABLE IF EXISTS `__disco_levels_k0`;

DROP TABLE IF EXISTS `__disco_levels_k1`;

DROP TABLE IF EXISTS `__disco_levels_k2`;

DROP TABLE IF EXISTS `__disco_levels_k3`;

DROP TABLE IF EXISTS `__disco_levels_t0`;

DROP TABLE IF EXISTS `__disco_guard`;
