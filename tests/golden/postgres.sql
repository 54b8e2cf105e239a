-- discosql 0.1.0: synthpop disclosure() measures as SQL (postgres dialect)
-- keys sex, age, region, placesize; target(s) income; m = 2
-- reads:
--   original: "survey"."sd2011"
--   synthetic 1: "survey"."syn_1"
--   synthetic 2: "survey"."syn_2"
-- Results: for each target, one SELECT per table: ident, attrib, allcaps, exclusions,
-- check_1way, check_2way, disco_curve, and disco_tau where tau was given (percentages 0-100,
-- as synthpop); with several targets a one-row table (target) names each target before its
-- tables. Work tables start with __disco_ (temporary; where the engine has none, tables of
-- the current schema named for this export, dropped at the end). Decisions that needed the
-- data were made at export time (below, per target). The script checks the decisions before
-- it counts (stage 015) and stops with a message naming the column when the data it runs on
-- no longer fit them: re-export then. In a shell that goes on after an error every later
-- statement fails too and no numbers print; to stop at once run `duckdb -bail`,
-- `psql -v ON_ERROR_STOP=1` or your console's equivalent.

--
-- ===== target 'income' =====
-- options: denom_lim=5, exclude_ov_denom_lim=False, not_targetlev=['[-8,600)'], use_target_na=True, use_keys_na=[True, True, False, True], exclude=[('sex', 'MALE', '[1440,2000)')], thresh_1way=(50.0, 90.0), thresh_2way=(4.0, 80.0)
-- grouping of 'income' (decided at export time, quantile breaks): ['[-8,600)', '[600,1000)', '[1000,1440)', '[1440,2000)', '[2000,16000]']
-- level arguments checked against the data at export time
-- q packing (decided at export time): key radices [3, 80, 17, 7] (levels + 1), 1 BIGINT word(s); more levels in the data need a new export

-- stages/010_codes.sql.j2
-- Stage 010 codes: the level dictionaries of one or more columns (keys, targets) in one
-- statement. Every distinct raw value of a column in the original and the syntheses gets its
-- level name (synthpop's factor levels, as macros/levels) and an integer code: 0 for
-- 'Missing' (NA, NaN, a genuine 'Missing'), 1..n for the other names in byte order. Later
-- stages count and join small integers, and turn codes back into names only in the few rows
-- of the checks. On small data several columns share one statement (and one table: stacked):
-- there a dictionary is mostly a statement's fixed cost (DuckDB binds, optimizes and runs
-- eight one-column statements in 25 ms, the eight stacked in 6 ms); stages read a column's
-- dictionary only through macros/coding's dictionary(col).
-- Context: entries = [{column, sources}]: column = {name, grouping, as_text, stack} (as_text:
--          the column's engine types differ between data sets, e.g. BIGINT and DOUBLE, so raw
--          values are matched by their text, not by a lossy union; stack: its number in a
--          stacked table, or none for a table of its own); sources = [{src, sql, kinds}]
--          (data sets where the column has values); stacked (whether the table is stacked);
--          na_only_missing: only NA and NaN get code 0, and a genuine text 'Missing' gets
--          a code of its own (replicated uniques compare values); branches (stacked, on an
--          engine whose GROUPING SETS are one pass, not Spark's, which copy each row once
--          per set (dialects.Dialect), every column of one type in all its data sets: none,
--          or [{sql, columns}], each data set with the entries' column names, none where a
--          column has no values there): the data sets are stacked first and every column's
--          values found in one grouping-set pass over them (on SD2011's 6 data sets and 5
--          columns, 11 ms instead of 26 ms for thirty groupings; for the risk family's one
--          data set, one pass instead of one per key: 0.24 s against 0.54 s for 8 keys of
--          10M records); typed_first (read when stacked): the stacked UNION leads with a
--          branch of no rows that types its columns (the engine's UNION does not widen:
--          dialects.Dialect);
--          collected (stacked, Spark: Dialect.collect_set; Python decides which columns,
--          core/dictionaries.collected): [{name, sql, columns: [(i, name)]}], each one
--          aggregation of a data set's collect_set arrays, one per column (a_i), and each
--          collected entry's collect maps a data set's src to its aggregation: its values
--          come from the array, one row per element, not from a grouping (which is a job
--          of its own on Spark: docs/performance.md, Spark).
-- Output:  a table of its own: v (a raw value, or its text), level VARCHAR, code BIGINT;
--          stacked: c INTEGER (the column's stack number), v_0 .. v_{n-1} (column c's raw
--          values in v_c, NULL in the others), level, code. One row per distinct value of a column,
--          plus (NULL, 'Missing', 0) so that 'Missing' always has a name; NULL raw values
--          never match v, their code is 0.
-- synthpop: D:197-262 (factor(), grouping, "Missing").

CREATE TEMPORARY TABLE "__disco_levels_k0" AS
WITH named AS (
  SELECT
    v,
    COALESCE(CAST("__disco_x" AS TEXT), 'Missing') AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      "sex" AS v,
      MIN("sex") AS "__disco_x"
    FROM "survey"."sd2011" AS __disco_s
    WHERE
      NOT "sex" IS NULL
    GROUP BY
      "sex"
  ) AS raw_0
  UNION ALL
  SELECT
    v,
    COALESCE(CAST("__disco_x" AS TEXT), 'Missing') AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      "sex" AS v,
      MIN("sex") AS "__disco_x"
    FROM "survey"."syn_1" AS __disco_s
    WHERE
      NOT "sex" IS NULL
    GROUP BY
      "sex"
  ) AS raw_1
  UNION ALL
  SELECT
    v,
    COALESCE(CAST("__disco_x" AS TEXT), 'Missing') AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      "sex" AS v,
      MIN("sex") AS "__disco_x"
    FROM "survey"."syn_2" AS __disco_s
    WHERE
      NOT "sex" IS NULL
    GROUP BY
      "sex"
  ) AS raw_2
  UNION ALL
  SELECT
    NULL AS v,
    'Missing' AS level
), one_per_value AS (
  /* the same value may come from several data sets (as 0.0 in one, -0.0 in another); */
  /* this grouping is the only deduplication (the data sets are stacked by UNION ALL: a */
  /* DuckDB grouping costs about 1 ms even on a few rows, a fifth of a small dictionary) */
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
    WHEN na = 1
    THEN 0
    ELSE DENSE_RANK() OVER (PARTITION BY na ORDER BY level COLLATE "C")
  END AS BIGINT) AS code /* BIGINT where it is made: dense_rank() is a 32-bit INT on Spark, a DECIMAL elsewhere */
FROM (
  /* code 0 or not, decided once per value (na_only_missing reads the raw value's text) */
  SELECT
    v,
    level,
    CASE WHEN level = 'Missing' THEN 1 ELSE 0 END AS na
  FROM one_per_value
) AS __disco_v;

ANALYZE "__disco_levels_k0";

-- stages/010_codes.sql.j2
-- Stage 010 codes: the level dictionaries of one or more columns (keys, targets) in one
-- statement. Every distinct raw value of a column in the original and the syntheses gets its
-- level name (synthpop's factor levels, as macros/levels) and an integer code: 0 for
-- 'Missing' (NA, NaN, a genuine 'Missing'), 1..n for the other names in byte order. Later
-- stages count and join small integers, and turn codes back into names only in the few rows
-- of the checks. On small data several columns share one statement (and one table: stacked):
-- there a dictionary is mostly a statement's fixed cost (DuckDB binds, optimizes and runs
-- eight one-column statements in 25 ms, the eight stacked in 6 ms); stages read a column's
-- dictionary only through macros/coding's dictionary(col).
-- Context: entries = [{column, sources}]: column = {name, grouping, as_text, stack} (as_text:
--          the column's engine types differ between data sets, e.g. BIGINT and DOUBLE, so raw
--          values are matched by their text, not by a lossy union; stack: its number in a
--          stacked table, or none for a table of its own); sources = [{src, sql, kinds}]
--          (data sets where the column has values); stacked (whether the table is stacked);
--          na_only_missing: only NA and NaN get code 0, and a genuine text 'Missing' gets
--          a code of its own (replicated uniques compare values); branches (stacked, on an
--          engine whose GROUPING SETS are one pass, not Spark's, which copy each row once
--          per set (dialects.Dialect), every column of one type in all its data sets: none,
--          or [{sql, columns}], each data set with the entries' column names, none where a
--          column has no values there): the data sets are stacked first and every column's
--          values found in one grouping-set pass over them (on SD2011's 6 data sets and 5
--          columns, 11 ms instead of 26 ms for thirty groupings; for the risk family's one
--          data set, one pass instead of one per key: 0.24 s against 0.54 s for 8 keys of
--          10M records); typed_first (read when stacked): the stacked UNION leads with a
--          branch of no rows that types its columns (the engine's UNION does not widen:
--          dialects.Dialect);
--          collected (stacked, Spark: Dialect.collect_set; Python decides which columns,
--          core/dictionaries.collected): [{name, sql, columns: [(i, name)]}], each one
--          aggregation of a data set's collect_set arrays, one per column (a_i), and each
--          collected entry's collect maps a data set's src to its aggregation: its values
--          come from the array, one row per element, not from a grouping (which is a job
--          of its own on Spark: docs/performance.md, Spark).
-- Output:  a table of its own: v (a raw value, or its text), level VARCHAR, code BIGINT;
--          stacked: c INTEGER (the column's stack number), v_0 .. v_{n-1} (column c's raw
--          values in v_c, NULL in the others), level, code. One row per distinct value of a column,
--          plus (NULL, 'Missing', 0) so that 'Missing' always has a name; NULL raw values
--          never match v, their code is 0.
-- synthpop: D:197-262 (factor(), grouping, "Missing").

CREATE TEMPORARY TABLE "__disco_levels_k1" AS
WITH named AS (
  SELECT
    v,
    COALESCE(CAST("__disco_x" AS TEXT), 'Missing') AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      "age" AS v,
      MIN("age") AS "__disco_x"
    FROM "survey"."sd2011" AS __disco_s
    WHERE
      NOT "age" IS NULL
    GROUP BY
      "age"
  ) AS raw_0
  UNION ALL
  SELECT
    v,
    COALESCE(CAST("__disco_x" AS TEXT), 'Missing') AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      "age" AS v,
      MIN("age") AS "__disco_x"
    FROM "survey"."syn_1" AS __disco_s
    WHERE
      NOT "age" IS NULL
    GROUP BY
      "age"
  ) AS raw_1
  UNION ALL
  SELECT
    v,
    COALESCE(CAST("__disco_x" AS TEXT), 'Missing') AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      "age" AS v,
      MIN("age") AS "__disco_x"
    FROM "survey"."syn_2" AS __disco_s
    WHERE
      NOT "age" IS NULL
    GROUP BY
      "age"
  ) AS raw_2
  UNION ALL
  SELECT
    NULL AS v,
    'Missing' AS level
), one_per_value AS (
  /* the same value may come from several data sets (as 0.0 in one, -0.0 in another); */
  /* this grouping is the only deduplication (the data sets are stacked by UNION ALL: a */
  /* DuckDB grouping costs about 1 ms even on a few rows, a fifth of a small dictionary) */
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
    WHEN na = 1
    THEN 0
    ELSE DENSE_RANK() OVER (PARTITION BY na ORDER BY level COLLATE "C")
  END AS BIGINT) AS code /* BIGINT where it is made: dense_rank() is a 32-bit INT on Spark, a DECIMAL elsewhere */
FROM (
  /* code 0 or not, decided once per value (na_only_missing reads the raw value's text) */
  SELECT
    v,
    level,
    CASE WHEN level = 'Missing' THEN 1 ELSE 0 END AS na
  FROM one_per_value
) AS __disco_v;

ANALYZE "__disco_levels_k1";

-- stages/010_codes.sql.j2
-- Stage 010 codes: the level dictionaries of one or more columns (keys, targets) in one
-- statement. Every distinct raw value of a column in the original and the syntheses gets its
-- level name (synthpop's factor levels, as macros/levels) and an integer code: 0 for
-- 'Missing' (NA, NaN, a genuine 'Missing'), 1..n for the other names in byte order. Later
-- stages count and join small integers, and turn codes back into names only in the few rows
-- of the checks. On small data several columns share one statement (and one table: stacked):
-- there a dictionary is mostly a statement's fixed cost (DuckDB binds, optimizes and runs
-- eight one-column statements in 25 ms, the eight stacked in 6 ms); stages read a column's
-- dictionary only through macros/coding's dictionary(col).
-- Context: entries = [{column, sources}]: column = {name, grouping, as_text, stack} (as_text:
--          the column's engine types differ between data sets, e.g. BIGINT and DOUBLE, so raw
--          values are matched by their text, not by a lossy union; stack: its number in a
--          stacked table, or none for a table of its own); sources = [{src, sql, kinds}]
--          (data sets where the column has values); stacked (whether the table is stacked);
--          na_only_missing: only NA and NaN get code 0, and a genuine text 'Missing' gets
--          a code of its own (replicated uniques compare values); branches (stacked, on an
--          engine whose GROUPING SETS are one pass, not Spark's, which copy each row once
--          per set (dialects.Dialect), every column of one type in all its data sets: none,
--          or [{sql, columns}], each data set with the entries' column names, none where a
--          column has no values there): the data sets are stacked first and every column's
--          values found in one grouping-set pass over them (on SD2011's 6 data sets and 5
--          columns, 11 ms instead of 26 ms for thirty groupings; for the risk family's one
--          data set, one pass instead of one per key: 0.24 s against 0.54 s for 8 keys of
--          10M records); typed_first (read when stacked): the stacked UNION leads with a
--          branch of no rows that types its columns (the engine's UNION does not widen:
--          dialects.Dialect);
--          collected (stacked, Spark: Dialect.collect_set; Python decides which columns,
--          core/dictionaries.collected): [{name, sql, columns: [(i, name)]}], each one
--          aggregation of a data set's collect_set arrays, one per column (a_i), and each
--          collected entry's collect maps a data set's src to its aggregation: its values
--          come from the array, one row per element, not from a grouping (which is a job
--          of its own on Spark: docs/performance.md, Spark).
-- Output:  a table of its own: v (a raw value, or its text), level VARCHAR, code BIGINT;
--          stacked: c INTEGER (the column's stack number), v_0 .. v_{n-1} (column c's raw
--          values in v_c, NULL in the others), level, code. One row per distinct value of a column,
--          plus (NULL, 'Missing', 0) so that 'Missing' always has a name; NULL raw values
--          never match v, their code is 0.
-- synthpop: D:197-262 (factor(), grouping, "Missing").

CREATE TEMPORARY TABLE "__disco_levels_k2" AS
WITH named AS (
  SELECT
    v,
    COALESCE(CAST("__disco_x" AS TEXT), 'Missing') AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      "region" AS v,
      MIN("region") AS "__disco_x"
    FROM "survey"."sd2011" AS __disco_s
    WHERE
      NOT "region" IS NULL
    GROUP BY
      "region"
  ) AS raw_0
  UNION ALL
  SELECT
    v,
    COALESCE(CAST("__disco_x" AS TEXT), 'Missing') AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      "region" AS v,
      MIN("region") AS "__disco_x"
    FROM "survey"."syn_1" AS __disco_s
    WHERE
      NOT "region" IS NULL
    GROUP BY
      "region"
  ) AS raw_1
  UNION ALL
  SELECT
    v,
    COALESCE(CAST("__disco_x" AS TEXT), 'Missing') AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      "region" AS v,
      MIN("region") AS "__disco_x"
    FROM "survey"."syn_2" AS __disco_s
    WHERE
      NOT "region" IS NULL
    GROUP BY
      "region"
  ) AS raw_2
  UNION ALL
  SELECT
    NULL AS v,
    'Missing' AS level
), one_per_value AS (
  /* the same value may come from several data sets (as 0.0 in one, -0.0 in another); */
  /* this grouping is the only deduplication (the data sets are stacked by UNION ALL: a */
  /* DuckDB grouping costs about 1 ms even on a few rows, a fifth of a small dictionary) */
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
    WHEN na = 1
    THEN 0
    ELSE DENSE_RANK() OVER (PARTITION BY na ORDER BY level COLLATE "C")
  END AS BIGINT) AS code /* BIGINT where it is made: dense_rank() is a 32-bit INT on Spark, a DECIMAL elsewhere */
FROM (
  /* code 0 or not, decided once per value (na_only_missing reads the raw value's text) */
  SELECT
    v,
    level,
    CASE WHEN level = 'Missing' THEN 1 ELSE 0 END AS na
  FROM one_per_value
) AS __disco_v;

ANALYZE "__disco_levels_k2";

-- stages/010_codes.sql.j2
-- Stage 010 codes: the level dictionaries of one or more columns (keys, targets) in one
-- statement. Every distinct raw value of a column in the original and the syntheses gets its
-- level name (synthpop's factor levels, as macros/levels) and an integer code: 0 for
-- 'Missing' (NA, NaN, a genuine 'Missing'), 1..n for the other names in byte order. Later
-- stages count and join small integers, and turn codes back into names only in the few rows
-- of the checks. On small data several columns share one statement (and one table: stacked):
-- there a dictionary is mostly a statement's fixed cost (DuckDB binds, optimizes and runs
-- eight one-column statements in 25 ms, the eight stacked in 6 ms); stages read a column's
-- dictionary only through macros/coding's dictionary(col).
-- Context: entries = [{column, sources}]: column = {name, grouping, as_text, stack} (as_text:
--          the column's engine types differ between data sets, e.g. BIGINT and DOUBLE, so raw
--          values are matched by their text, not by a lossy union; stack: its number in a
--          stacked table, or none for a table of its own); sources = [{src, sql, kinds}]
--          (data sets where the column has values); stacked (whether the table is stacked);
--          na_only_missing: only NA and NaN get code 0, and a genuine text 'Missing' gets
--          a code of its own (replicated uniques compare values); branches (stacked, on an
--          engine whose GROUPING SETS are one pass, not Spark's, which copy each row once
--          per set (dialects.Dialect), every column of one type in all its data sets: none,
--          or [{sql, columns}], each data set with the entries' column names, none where a
--          column has no values there): the data sets are stacked first and every column's
--          values found in one grouping-set pass over them (on SD2011's 6 data sets and 5
--          columns, 11 ms instead of 26 ms for thirty groupings; for the risk family's one
--          data set, one pass instead of one per key: 0.24 s against 0.54 s for 8 keys of
--          10M records); typed_first (read when stacked): the stacked UNION leads with a
--          branch of no rows that types its columns (the engine's UNION does not widen:
--          dialects.Dialect);
--          collected (stacked, Spark: Dialect.collect_set; Python decides which columns,
--          core/dictionaries.collected): [{name, sql, columns: [(i, name)]}], each one
--          aggregation of a data set's collect_set arrays, one per column (a_i), and each
--          collected entry's collect maps a data set's src to its aggregation: its values
--          come from the array, one row per element, not from a grouping (which is a job
--          of its own on Spark: docs/performance.md, Spark).
-- Output:  a table of its own: v (a raw value, or its text), level VARCHAR, code BIGINT;
--          stacked: c INTEGER (the column's stack number), v_0 .. v_{n-1} (column c's raw
--          values in v_c, NULL in the others), level, code. One row per distinct value of a column,
--          plus (NULL, 'Missing', 0) so that 'Missing' always has a name; NULL raw values
--          never match v, their code is 0.
-- synthpop: D:197-262 (factor(), grouping, "Missing").

CREATE TEMPORARY TABLE "__disco_levels_k3" AS
WITH named AS (
  SELECT
    v,
    COALESCE(CAST("__disco_x" AS TEXT), 'Missing') AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      "placesize" AS v,
      MIN("placesize") AS "__disco_x"
    FROM "survey"."sd2011" AS __disco_s
    WHERE
      NOT "placesize" IS NULL
    GROUP BY
      "placesize"
  ) AS raw_0
  UNION ALL
  SELECT
    v,
    COALESCE(CAST("__disco_x" AS TEXT), 'Missing') AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      "placesize" AS v,
      MIN("placesize") AS "__disco_x"
    FROM "survey"."syn_1" AS __disco_s
    WHERE
      NOT "placesize" IS NULL
    GROUP BY
      "placesize"
  ) AS raw_1
  UNION ALL
  SELECT
    v,
    COALESCE(CAST("__disco_x" AS TEXT), 'Missing') AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      "placesize" AS v,
      MIN("placesize") AS "__disco_x"
    FROM "survey"."syn_2" AS __disco_s
    WHERE
      NOT "placesize" IS NULL
    GROUP BY
      "placesize"
  ) AS raw_2
  UNION ALL
  SELECT
    NULL AS v,
    'Missing' AS level
), one_per_value AS (
  /* the same value may come from several data sets (as 0.0 in one, -0.0 in another); */
  /* this grouping is the only deduplication (the data sets are stacked by UNION ALL: a */
  /* DuckDB grouping costs about 1 ms even on a few rows, a fifth of a small dictionary) */
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
    WHEN na = 1
    THEN 0
    ELSE DENSE_RANK() OVER (PARTITION BY na ORDER BY level COLLATE "C")
  END AS BIGINT) AS code /* BIGINT where it is made: dense_rank() is a 32-bit INT on Spark, a DECIMAL elsewhere */
FROM (
  /* code 0 or not, decided once per value (na_only_missing reads the raw value's text) */
  SELECT
    v,
    level,
    CASE WHEN level = 'Missing' THEN 1 ELSE 0 END AS na
  FROM one_per_value
) AS __disco_v;

ANALYZE "__disco_levels_k3";

-- stages/010_codes.sql.j2
-- Stage 010 codes: the level dictionaries of one or more columns (keys, targets) in one
-- statement. Every distinct raw value of a column in the original and the syntheses gets its
-- level name (synthpop's factor levels, as macros/levels) and an integer code: 0 for
-- 'Missing' (NA, NaN, a genuine 'Missing'), 1..n for the other names in byte order. Later
-- stages count and join small integers, and turn codes back into names only in the few rows
-- of the checks. On small data several columns share one statement (and one table: stacked):
-- there a dictionary is mostly a statement's fixed cost (DuckDB binds, optimizes and runs
-- eight one-column statements in 25 ms, the eight stacked in 6 ms); stages read a column's
-- dictionary only through macros/coding's dictionary(col).
-- Context: entries = [{column, sources}]: column = {name, grouping, as_text, stack} (as_text:
--          the column's engine types differ between data sets, e.g. BIGINT and DOUBLE, so raw
--          values are matched by their text, not by a lossy union; stack: its number in a
--          stacked table, or none for a table of its own); sources = [{src, sql, kinds}]
--          (data sets where the column has values); stacked (whether the table is stacked);
--          na_only_missing: only NA and NaN get code 0, and a genuine text 'Missing' gets
--          a code of its own (replicated uniques compare values); branches (stacked, on an
--          engine whose GROUPING SETS are one pass, not Spark's, which copy each row once
--          per set (dialects.Dialect), every column of one type in all its data sets: none,
--          or [{sql, columns}], each data set with the entries' column names, none where a
--          column has no values there): the data sets are stacked first and every column's
--          values found in one grouping-set pass over them (on SD2011's 6 data sets and 5
--          columns, 11 ms instead of 26 ms for thirty groupings; for the risk family's one
--          data set, one pass instead of one per key: 0.24 s against 0.54 s for 8 keys of
--          10M records); typed_first (read when stacked): the stacked UNION leads with a
--          branch of no rows that types its columns (the engine's UNION does not widen:
--          dialects.Dialect);
--          collected (stacked, Spark: Dialect.collect_set; Python decides which columns,
--          core/dictionaries.collected): [{name, sql, columns: [(i, name)]}], each one
--          aggregation of a data set's collect_set arrays, one per column (a_i), and each
--          collected entry's collect maps a data set's src to its aggregation: its values
--          come from the array, one row per element, not from a grouping (which is a job
--          of its own on Spark: docs/performance.md, Spark).
-- Output:  a table of its own: v (a raw value, or its text), level VARCHAR, code BIGINT;
--          stacked: c INTEGER (the column's stack number), v_0 .. v_{n-1} (column c's raw
--          values in v_c, NULL in the others), level, code. One row per distinct value of a column,
--          plus (NULL, 'Missing', 0) so that 'Missing' always has a name; NULL raw values
--          never match v, their code is 0.
-- synthpop: D:197-262 (factor(), grouping, "Missing").

CREATE TEMPORARY TABLE "__disco_levels_t0" AS
WITH named AS (
  SELECT
    v,
    CASE
      WHEN "__disco_x" IS NULL
      OR (
        CAST("__disco_x" AS DOUBLE PRECISION) = CAST('NaN' AS DOUBLE PRECISION)
      )
      THEN 'Missing'
      WHEN CAST("__disco_x" AS DOUBLE PRECISION) < CAST('600.0' AS DOUBLE PRECISION)
      THEN '[-8,600)'
      WHEN CAST("__disco_x" AS DOUBLE PRECISION) < CAST('1000.0' AS DOUBLE PRECISION)
      THEN '[600,1000)'
      WHEN CAST("__disco_x" AS DOUBLE PRECISION) < CAST('1440.0' AS DOUBLE PRECISION)
      THEN '[1000,1440)'
      WHEN CAST("__disco_x" AS DOUBLE PRECISION) < CAST('2000.0' AS DOUBLE PRECISION)
      THEN '[1440,2000)'
      ELSE '[2000,16000]'
    END AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      "income" AS v,
      MIN("income") AS "__disco_x"
    FROM "survey"."sd2011" AS __disco_s
    WHERE
      NOT "income" IS NULL
    GROUP BY
      "income"
  ) AS raw_0
  UNION ALL
  SELECT
    v,
    CASE
      WHEN "__disco_x" IS NULL
      OR (
        CAST("__disco_x" AS DOUBLE PRECISION) = CAST('NaN' AS DOUBLE PRECISION)
      )
      THEN 'Missing'
      WHEN CAST("__disco_x" AS DOUBLE PRECISION) < CAST('600.0' AS DOUBLE PRECISION)
      THEN '[-8,600)'
      WHEN CAST("__disco_x" AS DOUBLE PRECISION) < CAST('1000.0' AS DOUBLE PRECISION)
      THEN '[600,1000)'
      WHEN CAST("__disco_x" AS DOUBLE PRECISION) < CAST('1440.0' AS DOUBLE PRECISION)
      THEN '[1000,1440)'
      WHEN CAST("__disco_x" AS DOUBLE PRECISION) < CAST('2000.0' AS DOUBLE PRECISION)
      THEN '[1440,2000)'
      ELSE '[2000,16000]'
    END AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      "income" AS v,
      MIN("income") AS "__disco_x"
    FROM "survey"."syn_1" AS __disco_s
    WHERE
      NOT "income" IS NULL
    GROUP BY
      "income"
  ) AS raw_1
  UNION ALL
  SELECT
    v,
    CASE
      WHEN "__disco_x" IS NULL
      OR (
        CAST("__disco_x" AS DOUBLE PRECISION) = CAST('NaN' AS DOUBLE PRECISION)
      )
      THEN 'Missing'
      WHEN CAST("__disco_x" AS DOUBLE PRECISION) < CAST('600.0' AS DOUBLE PRECISION)
      THEN '[-8,600)'
      WHEN CAST("__disco_x" AS DOUBLE PRECISION) < CAST('1000.0' AS DOUBLE PRECISION)
      THEN '[600,1000)'
      WHEN CAST("__disco_x" AS DOUBLE PRECISION) < CAST('1440.0' AS DOUBLE PRECISION)
      THEN '[1000,1440)'
      WHEN CAST("__disco_x" AS DOUBLE PRECISION) < CAST('2000.0' AS DOUBLE PRECISION)
      THEN '[1440,2000)'
      ELSE '[2000,16000]'
    END AS level
  FROM (
    /* grouped by exactly what the records stage compares (so every raw value matches one */
    /* row); values in one group (e.g. 0.0 and -0.0) share a level, any one names it */
    /* (a boolean group is one value: PostgreSQL has no min(boolean)) */
    SELECT
      "income" AS v,
      MIN("income") AS "__disco_x"
    FROM "survey"."syn_2" AS __disco_s
    WHERE
      NOT "income" IS NULL
    GROUP BY
      "income"
  ) AS raw_2
  UNION ALL
  SELECT
    NULL AS v,
    'Missing' AS level
), one_per_value AS (
  /* the same value may come from several data sets (as 0.0 in one, -0.0 in another); */
  /* this grouping is the only deduplication (the data sets are stacked by UNION ALL: a */
  /* DuckDB grouping costs about 1 ms even on a few rows, a fifth of a small dictionary) */
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
    WHEN na = 1
    THEN 0
    ELSE DENSE_RANK() OVER (PARTITION BY na ORDER BY level COLLATE "C")
  END AS BIGINT) AS code /* BIGINT where it is made: dense_rank() is a 32-bit INT on Spark, a DECIMAL elsewhere */
FROM (
  /* code 0 or not, decided once per value (na_only_missing reads the raw value's text) */
  SELECT
    v,
    level,
    CASE WHEN level = 'Missing' THEN 1 ELSE 0 END AS na
  FROM one_per_value
) AS __disco_v;

ANALYZE "__disco_levels_t0";

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

CREATE TEMPORARY TABLE "__disco_guard" AS
SELECT
  CAST(CASE
    WHEN c_0.bad > 0
    THEN CAST((
      'discosql: the data differ from those this script was exported from: the grouping breaks of target ''income'' were computed from other values (grouping/stats); re-export the script (discosql.to_sql) from the data it runs on (check 0, count ' || CAST(c_0.bad AS TEXT) || ')'
    ) AS INT)
  END AS INT) AS "ok_0",
  CAST(CASE
    WHEN c_1.bad > 0
    THEN CAST((
      'discosql: the data differ from those this script was exported from: the grouping breaks of target ''income'' were computed from other values (grouping/order_stats); re-export the script (discosql.to_sql) from the data it runs on (check 1, count ' || CAST(c_1.bad AS TEXT) || ')'
    ) AS INT)
  END AS INT) AS "ok_1",
  CAST(CASE
    WHEN c_2.bad > 0
    THEN CAST((
      'discosql: the data differ from those this script was exported from: key ''sex'' has more than the 2 levels the q packing was fixed for; re-export the script (discosql.to_sql) from the data it runs on (check 2, count ' || CAST(c_2.bad AS TEXT) || ')'
    ) AS INT)
  END AS INT) AS "ok_2",
  CAST(CASE
    WHEN c_3.bad > 0
    THEN CAST((
      'discosql: the data differ from those this script was exported from: key ''age'' has more than the 79 levels the q packing was fixed for; re-export the script (discosql.to_sql) from the data it runs on (check 3, count ' || CAST(c_3.bad AS TEXT) || ')'
    ) AS INT)
  END AS INT) AS "ok_3",
  CAST(CASE
    WHEN c_4.bad > 0
    THEN CAST((
      'discosql: the data differ from those this script was exported from: key ''region'' has more than the 16 levels the q packing was fixed for; re-export the script (discosql.to_sql) from the data it runs on (check 4, count ' || CAST(c_4.bad AS TEXT) || ')'
    ) AS INT)
  END AS INT) AS "ok_4",
  CAST(CASE
    WHEN c_5.bad > 0
    THEN CAST((
      'discosql: the data differ from those this script was exported from: key ''placesize'' has more than the 6 levels the q packing was fixed for; re-export the script (discosql.to_sql) from the data it runs on (check 5, count ' || CAST(c_5.bad AS TEXT) || ')'
    ) AS INT)
  END AS INT) AS "ok_5",
  CAST(CASE
    WHEN c_6.bad > 0
    THEN CAST((
      'discosql: the data differ from those this script was exported from: target ''income'' has more than 32767 levels (smallint codes); re-export the script (discosql.to_sql) from the data it runs on (check 6, count ' || CAST(c_6.bad AS TEXT) || ')'
    ) AS INT)
  END AS INT) AS "ok_6",
  CAST(CASE
    WHEN c_7.bad > 0
    THEN CAST((
      'discosql: the data differ from those this script was exported from: not_targetlev: ''[-8,600)'' is no longer a level of ''income''; re-export the script (discosql.to_sql) from the data it runs on (check 7, count ' || CAST(c_7.bad AS TEXT) || ')'
    ) AS INT)
  END AS INT) AS "ok_7",
  CAST(CASE
    WHEN c_8.bad > 0
    THEN CAST((
      'discosql: the data differ from those this script was exported from: exclude_targetlevs[0]: ''[1440,2000)'' is no longer a level of ''income''; re-export the script (discosql.to_sql) from the data it runs on (check 8, count ' || CAST(c_8.bad AS TEXT) || ')'
    ) AS INT)
  END AS INT) AS "ok_8",
  CAST(CASE
    WHEN c_9.bad > 0
    THEN CAST((
      'discosql: the data differ from those this script was exported from: exclude_keylevs[0]: ''MALE'' is no longer a level of ''sex''; re-export the script (discosql.to_sql) from the data it runs on (check 9, count ' || CAST(c_9.bad AS TEXT) || ')'
    ) AS INT)
  END AS INT) AS "ok_9"
FROM (
  /* each side's rows are distinct: a row of one side without its twin on the other */
  /* is a difference (the query appears once, the rows it gave then are literals) */
  SELECT
    COUNT(*) AS bad
  FROM (
    SELECT
      "n_orig",
      "n_syn",
      "n_distinct",
      "min_value",
      "max_value",
      "n_infinite"
    FROM (
      SELECT
        "n_orig",
        "n_syn",
        "n_distinct",
        "min_value",
        "max_value",
        "n_infinite",
        1 AS side
      FROM (
        WITH pooled AS (
          SELECT
            0 AS src,
            CAST("income" AS DOUBLE PRECISION) AS v
          FROM "survey"."sd2011" AS __disco_p
          UNION ALL
          SELECT
            1 AS src,
            CAST("income" AS DOUBLE PRECISION) AS v
          FROM "survey"."syn_1" AS __disco_p
          UNION ALL
          SELECT
            2 AS src,
            CAST("income" AS DOUBLE PRECISION) AS v
          FROM "survey"."syn_2" AS __disco_p
        ), flagged AS (
          SELECT
            src,
            v,
            CASE
              WHEN NOT v IS NULL AND NOT (
                v = CAST('NaN' AS DOUBLE PRECISION)
              )
              THEN 1
              ELSE 0
            END AS usable
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
        CAST('-8.0' AS DOUBLE PRECISION),
        CAST('16000.0' AS DOUBLE PRECISION),
        0,
        2
    ) AS both_sides
    GROUP BY
      "n_orig",
      "n_syn",
      "n_distinct",
      "min_value",
      "max_value",
      "n_infinite"
    HAVING
      COUNT(*) <> 2 OR MIN(side) = MAX(side)
  ) AS diff
) AS "c_0"
CROSS JOIN (
  /* each side's rows are distinct: a row of one side without its twin on the other */
  /* is a difference (the query appears once, the rows it gave then are literals) */
  SELECT
    COUNT(*) AS bad
  FROM (
    SELECT
      "rank_pos",
      "v"
    FROM (
      SELECT
        "rank_pos",
        "v",
        1 AS side
      FROM (
        WITH pooled AS (
          SELECT
            0 AS src,
            CAST("income" AS DOUBLE PRECISION) AS v
          FROM "survey"."sd2011" AS __disco_p
          UNION ALL
          SELECT
            1 AS src,
            CAST("income" AS DOUBLE PRECISION) AS v
          FROM "survey"."syn_1" AS __disco_p
          UNION ALL
          SELECT
            2 AS src,
            CAST("income" AS DOUBLE PRECISION) AS v
          FROM "survey"."syn_2" AS __disco_p
        ), counted AS (
          SELECT
            v,
            COUNT(*) AS n
          FROM pooled
          WHERE
            NOT v IS NULL AND NOT (
              v = CAST('NaN' AS DOUBLE PRECISION)
            )
          GROUP BY
            v
        ), cumulative AS (
          SELECT
            v,
            SUM(n) OVER (ORDER BY v rows BETWEEN UNBOUNDED preceding AND CURRENT ROW) AS upto
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
          w.rank_pos
      ) AS now
      UNION ALL
      SELECT
        1,
        CAST('-8.0' AS DOUBLE PRECISION),
        2
      UNION ALL
      SELECT
        2591,
        CAST('600.0' AS DOUBLE PRECISION),
        2
      UNION ALL
      SELECT
        2592,
        CAST('600.0' AS DOUBLE PRECISION),
        2
      UNION ALL
      SELECT
        5182,
        CAST('1000.0' AS DOUBLE PRECISION),
        2
      UNION ALL
      SELECT
        5183,
        CAST('1000.0' AS DOUBLE PRECISION),
        2
      UNION ALL
      SELECT
        7772,
        CAST('1440.0' AS DOUBLE PRECISION),
        2
      UNION ALL
      SELECT
        7773,
        CAST('1440.0' AS DOUBLE PRECISION),
        2
      UNION ALL
      SELECT
        10363,
        CAST('2000.0' AS DOUBLE PRECISION),
        2
      UNION ALL
      SELECT
        10364,
        CAST('2000.0' AS DOUBLE PRECISION),
        2
      UNION ALL
      SELECT
        12954,
        CAST('16000.0' AS DOUBLE PRECISION),
        2
    ) AS both_sides
    GROUP BY
      "rank_pos",
      "v"
    HAVING
      COUNT(*) <> 2 OR MIN(side) = MAX(side)
  ) AS diff
) AS "c_1"
CROSS JOIN (
  SELECT
    COUNT(*) AS bad
  FROM "__disco_levels_k0" AS __disco_d
  WHERE
    code >= 3
) AS "c_2"
CROSS JOIN (
  SELECT
    COUNT(*) AS bad
  FROM "__disco_levels_k1" AS __disco_d
  WHERE
    code >= 80
) AS "c_3"
CROSS JOIN (
  SELECT
    COUNT(*) AS bad
  FROM "__disco_levels_k2" AS __disco_d
  WHERE
    code >= 17
) AS "c_4"
CROSS JOIN (
  SELECT
    COUNT(*) AS bad
  FROM "__disco_levels_k3" AS __disco_d
  WHERE
    code >= 7
) AS "c_5"
CROSS JOIN (
  SELECT
    COUNT(*) AS bad
  FROM "__disco_levels_t0" AS __disco_d
  WHERE
    code >= 32768
) AS "c_6"
CROSS JOIN (
  SELECT
    CASE WHEN COUNT(*) = 0 THEN 1 ELSE 0 END AS bad
  FROM "__disco_levels_t0" AS __disco_d
  WHERE
    level = '[-8,600)'
) AS "c_7"
CROSS JOIN (
  SELECT
    CASE WHEN COUNT(*) = 0 THEN 1 ELSE 0 END AS bad
  FROM "__disco_levels_t0" AS __disco_d
  WHERE
    level = '[1440,2000)'
) AS "c_8"
CROSS JOIN (
  SELECT
    CASE WHEN COUNT(*) = 0 THEN 1 ELSE 0 END AS bad
  FROM "__disco_levels_k0" AS __disco_d
  WHERE
    level = 'MALE'
) AS "c_9";

ANALYZE "__disco_guard";

-- stages/040_cell_steps.sql.j2
-- Stage 040 cell steps: the exclusion step of every cell of one target and the counts that
-- survive the exclusions.
-- Inputs:  cells (stage 030): j, q columns (qcols), t, d, s; keys and target say how to read
--          a key's level and a named level (macros/cells). With cells_sql (engines that
--          pipeline a CTE: Engine.inline_cells) the cells are that query, inlined as the CTE
--          `cells`: one statement counts the cells and decides their steps, and the base cells
--          are never stored.
-- Context: not_targetlevs  [param names]   step 1 "excluded target"
--          drop_missing_target (bool)       step 2 "missing target", only if the ORIGINAL has 'Missing'
--          keys_no_na      [keys]           step 3 "missing in keys"
--          excludes        [{key, keylev, targetlev}] step 4 "set to exclude"
--          exclude_ov (bool)                step 5 "over denom_lim": each table's OWN count > denom_lim
--          steps: the steps a cell can have (stages.exclusion_context)
-- Params:  $denom_lim; the levels named by not_targetlevs and excludes
-- Output:  j, q columns, t, d, s, and where some exclusion can apply (steps beyond 0):
--          step_d, step_s: 0 kept, 1..4 the first exclusion step that applies, 5 over denom_lim
--                    (by the original resp. synthetic count)
--          d_keep, s_keep: d and s after exclusions.
--          Where none can (synthpop's defaults), every step is 0 and d' = d: the table is
--          narrower (10M records: 0.07 s less per target) and its readers read d and s.
--          Stage 045 sums them per q; disclosiveness is decided there (on the counts before
--          exclusions), so this table needs no margins and no join.
-- synthpop: D:342-371 (tables), D:374-466 (tab_exclude).

CREATE TEMPORARY TABLE "__disco_cells" AS
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

ANALYZE "__disco_cells";

-- stages/045_q_margins.sql.j2
-- Stage 045 q margins: one row per (synthesis, q) of one target with what every measure and
-- check needs from q as a whole, so that none of them joins margins back to the cells.
-- Inputs:  cells (stage 040): j, q columns (qcols), t, d, s, and where some exclusion can apply
--          step_d, step_s, d_keep, s_keep.
-- Context: steps: the exclusion steps a cell can have (0, and each step the target's options
--          can apply; Python decides, stages.exclusion_context).
-- Output:  [tid,] j, q columns,
--          dq, sq               d.q, s.q: records with key q before exclusions
--          dq_keep, sq_keep     d'.q, s'.q: after exclusions
--          d_levels, s_levels   cells of q with d > 0, with s > 0
--          -- the synthetic cell: the one cell with s > 0 when s_levels = 1 (then every
--          -- synthetic record with key q has its target level: ps_tq = 1, Dsyn and DiSCO)
--          syn_t, syn_d, syn_d_keep, syn_s_keep, syn_step_d, syn_step_s
--          -- the original cell: the one cell with d > 0 when d_levels = 1 (pd_tq = 1, Dorig)
--          orig_d_keep, orig_step_d
--          dd_keep, ss_keep, ds_keep   sums over the cells of d'^2, s'^2, d' * s' (CAP)
--          d_step_k (k in steps)       original records of q whose cell left at step k
-- Flags:   a cell is disclosive in the original (pd_tq = 1) iff d > 0 and d_levels = 1, in
--          the synthesis (ps_tq = 1) iff s > 0 and s_levels = 1; both in one cell iff
--          s_levels = 1 and syn_d = d.q > 0 (the synthetic cell holds every original record
--          of q). Decided on the counts before exclusions.
-- Speed:   every aggregate costs (10M records: 0.03 s each per target), so where no
--          exclusion can apply (steps = [0]) the after-exclusion columns are written as the
--          same aggregates as those before (d' = d), which DuckDB and PostgreSQL compute once, and the
--          steps are 0.
-- Stacked: with tid, the cells of several targets in one table (stacked 040), each row with its
--          target id: tid leads the grouping and the output (macros/cells by).
-- Types:   sums are cast to BIGINT (a SUM of BIGINT is a wider type in DuckDB and PostgreSQL).
-- synthpop: D:342-371 (the q margins of tab_ktd / tab_kts), D:374-466 (recomputed margins).

CREATE TEMPORARY TABLE "__disco_qcells" AS
SELECT
  j,
  "q_0",
  CAST(SUM(d) AS BIGINT) AS dq,
  CAST(SUM(s) AS BIGINT) AS sq,
  CAST(SUM(d_keep) AS BIGINT) AS dq_keep,
  CAST(SUM(s_keep) AS BIGINT) AS sq_keep,
  COUNT(CASE WHEN d > 0 THEN 1 END) AS d_levels,
  COUNT(CASE WHEN s > 0 THEN 1 END) AS s_levels,
  MAX(CASE WHEN s > 0 THEN t END) AS syn_t,
  CAST(SUM(CASE WHEN s > 0 THEN d ELSE 0 END) AS BIGINT) AS syn_d,
  CAST(SUM(CASE WHEN s > 0 THEN d_keep ELSE 0 END) AS BIGINT) AS syn_d_keep,
  CAST(SUM(CASE WHEN s > 0 THEN s_keep ELSE 0 END) AS BIGINT) AS syn_s_keep,
  MAX(CASE WHEN s > 0 THEN step_d END) AS syn_step_d,
  MAX(CASE WHEN s > 0 THEN step_s END) AS syn_step_s,
  CAST(SUM(CASE WHEN d > 0 THEN d_keep ELSE 0 END) AS BIGINT) AS orig_d_keep,
  MAX(CASE WHEN d > 0 THEN step_d END) AS orig_step_d,
  CAST(SUM(CAST(d_keep AS BIGINT) * d_keep) AS BIGINT) AS dd_keep, /* products of BIGINT (counts may be INTEGER, whose square overflows) */
  CAST(SUM(CAST(s_keep AS BIGINT) * s_keep) AS BIGINT) AS ss_keep,
  CAST(SUM(CAST(d_keep AS BIGINT) * s_keep) AS BIGINT) AS ds_keep,
  CAST(SUM(CASE WHEN step_d = 0 THEN d ELSE 0 END) AS BIGINT) AS "d_step_0",
  CAST(SUM(CASE WHEN step_d = 1 THEN d ELSE 0 END) AS BIGINT) AS "d_step_1",
  CAST(SUM(CASE WHEN step_d = 3 THEN d ELSE 0 END) AS BIGINT) AS "d_step_3",
  CAST(SUM(CASE WHEN step_d = 4 THEN d ELSE 0 END) AS BIGINT) AS "d_step_4"
FROM "__disco_cells"
GROUP BY
  j,
  "q_0";

ANALYZE "__disco_qcells";

-- measures/identity.sql.j2
-- Identity disclosure measures, one row per synthesis (percentages).
-- Inputs: the q margins (stage 045).  Nd = sum(d.q), Ns = sum(s.q) (before exclusions, as
-- synthpop).
-- Output: synthesis, UiO, UiS, UiOiS, repU
--   UiO   = 100 * #{q : d'.q = 1} / Nd                          unique in the original
--   UiS   = 100 * #{q : s'.q = 1} / Ns                          unique in the synthesis
--   UiOiS = 100 * #{q : d'.q = 1, s.q > 0 before exclusions} / Nd
--   repU  = 100 * #{q : d'.q = 1 and s'.q = 1} / Nd             replicated uniques
-- (d'.q, s'.q: q margins after exclusions.)  With tid (stacked targets): one row per target
-- and synthesis, tid first (macros/cells by).  synthpop: D:454-473.

SELECT
  j AS synthesis,
  CASE
    WHEN SUM(dq) = 0
    THEN CAST('NaN' AS DOUBLE PRECISION)
    ELSE 100 * CAST(SUM(CASE WHEN dq_keep = 1 THEN 1 ELSE 0 END) AS DOUBLE PRECISION) / CAST(SUM(dq) AS DOUBLE PRECISION)
  END AS "UiO",
  CASE
    WHEN SUM(sq) = 0
    THEN CAST('NaN' AS DOUBLE PRECISION)
    ELSE 100 * CAST(SUM(CASE WHEN sq_keep = 1 THEN 1 ELSE 0 END) AS DOUBLE PRECISION) / CAST(SUM(sq) AS DOUBLE PRECISION)
  END AS "UiS",
  CASE
    WHEN SUM(dq) = 0
    THEN CAST('NaN' AS DOUBLE PRECISION)
    ELSE 100 * CAST(SUM(CASE WHEN dq_keep = 1 AND sq > 0 THEN 1 ELSE 0 END) AS DOUBLE PRECISION) / CAST(SUM(dq) AS DOUBLE PRECISION)
  END AS "UiOiS",
  CASE
    WHEN SUM(dq) = 0
    THEN CAST('NaN' AS DOUBLE PRECISION)
    ELSE 100 * CAST(SUM(CASE WHEN dq_keep = 1 AND sq_keep = 1 THEN 1 ELSE 0 END) AS DOUBLE PRECISION) / CAST(SUM(dq) AS DOUBLE PRECISION)
  END AS "repU"
FROM "__disco_qcells"
GROUP BY
  j
ORDER BY
  j;

-- measures/attribute.sql.j2
-- Attribute disclosure measures, one row per synthesis (percentages, except the denominators).
-- Inputs: the q margins (stage 045). Disclosive flags are pre-exclusion, counts post-exclusion:
-- pd_tq = 1 is the one cell of q with d > 0 (d_levels = 1), ps_tq = 1 the one cell with s > 0
-- (s_levels = 1, its d' is syn_d_keep).
-- Output: synthesis, Dorig, Dsyn, iS, DiS, DiSCO, DiSDiO, max_denom, mean_denom
--   Dorig  = 100 * sum(d' : pd_tq = 1) / Nd
--   Dsyn   = 100 * sum(s' : ps_tq = 1) / Ns
--   iS     = 100 * sum(d' : s.q > 0) / Nd
--   DiS    = 100 * sum(d' : some ps_t'q = 1) / Nd
--   DiSCO  = 100 * sum(d' : ps_tq = 1) / Nd
--   DiSDiO = 100 * sum(d' : ps_tq = 1 and pd_tq = 1) / Nd
--   max_denom  = max d' over DiSCO cells (0 if none)
--   mean_denom = mean d' over DiSCO cells with d' > 0 (NaN if none)
-- With tid (stacked targets): one row per target and synthesis, tid first (macros/cells by).
-- synthpop: D:477-484.

SELECT
  j AS synthesis,
  CASE
    WHEN SUM(dq) = 0
    THEN CAST('NaN' AS DOUBLE PRECISION)
    ELSE 100 * CAST(SUM(CASE WHEN d_levels = 1 THEN orig_d_keep ELSE 0 END) AS DOUBLE PRECISION) / CAST(SUM(dq) AS DOUBLE PRECISION)
  END AS "Dorig",
  CASE
    WHEN SUM(sq) = 0
    THEN CAST('NaN' AS DOUBLE PRECISION)
    ELSE 100 * CAST(SUM(CASE WHEN s_levels = 1 THEN syn_s_keep ELSE 0 END) AS DOUBLE PRECISION) / CAST(SUM(sq) AS DOUBLE PRECISION)
  END AS "Dsyn",
  CASE
    WHEN SUM(dq) = 0
    THEN CAST('NaN' AS DOUBLE PRECISION)
    ELSE 100 * CAST(SUM(CASE WHEN sq > 0 THEN dq_keep ELSE 0 END) AS DOUBLE PRECISION) / CAST(SUM(dq) AS DOUBLE PRECISION)
  END AS "iS",
  CASE
    WHEN SUM(dq) = 0
    THEN CAST('NaN' AS DOUBLE PRECISION)
    ELSE 100 * CAST(SUM(CASE WHEN s_levels = 1 THEN dq_keep ELSE 0 END) AS DOUBLE PRECISION) / CAST(SUM(dq) AS DOUBLE PRECISION)
  END AS "DiS",
  CASE
    WHEN SUM(dq) = 0
    THEN CAST('NaN' AS DOUBLE PRECISION)
    ELSE 100 * CAST(SUM(CASE WHEN s_levels = 1 THEN syn_d_keep ELSE 0 END) AS DOUBLE PRECISION) / CAST(SUM(dq) AS DOUBLE PRECISION)
  END AS "DiSCO",
  CASE
    WHEN SUM(dq) = 0
    THEN CAST('NaN' AS DOUBLE PRECISION)
    ELSE 100 * CAST(SUM(
      CASE WHEN s_levels = 1 AND d_levels = 1 AND syn_d = dq THEN syn_d_keep ELSE 0 END
    ) AS DOUBLE PRECISION) / CAST(SUM(dq) AS DOUBLE PRECISION)
  END AS "DiSDiO",
  CAST(MAX(CASE WHEN s_levels = 1 THEN syn_d_keep ELSE 0 END) AS DOUBLE PRECISION) AS max_denom,
  COALESCE(
    AVG(
      CASE
        WHEN s_levels = 1 AND syn_d_keep > 0
        THEN CAST(syn_d_keep AS DOUBLE PRECISION)
      END
    ),
    CAST('NaN' AS DOUBLE PRECISION)
  ) AS mean_denom
FROM "__disco_qcells"
GROUP BY
  j
ORDER BY
  j;

-- measures/cap.sql.j2
-- CAP (correct attribution probability) measures, one row per synthesis (percentages).
-- Sums of fractions are exact, so the numbers do not depend on the order of addition:
-- ratio_sum for CAPd, CAPs and DCAP (ratios of counts), exact_sum for baseCAPd.
-- Context: ratio_sums: CAP's ratios summed by long division in BIGINT (Python decides:
--          Dialect.ratio_sums, and every count below 2^31), else in DECIMAL(38, 18).
-- Inputs: the cells (stage 040, for the target margins) and the q margins (stage 045, qcells:
--         the sums over q of d'^2, s'^2 and d' s', so that each q is one exact term);
--         pd'_tq = d'_tq / d'.q, ps'_tq = s'_tq / s'.q (0 if the margin is 0).
-- Output: synthesis, baseCAPd, CAPd, CAPs, DCAP, TCAP, TCAP_little
--   baseCAPd = 100 * sum_t (d_t. / Nd)^2        target margins BEFORE exclusions, 'Missing' included
--   CAPd     = 100 * sum_tq d'_tq * pd'_tq / Nd
--   CAPs     = 100 * sum_tq s'_tq * ps'_tq / Ns
--   DCAP     = 100 * sum_tq d'_tq * ps'_tq / Nd
--   TCAP     = 100 * sum(d' : ps_tq = 1) / sum_{q : s'.q > 0} d'.q   (= DiSCO / iS; NaN if 0/0)
--   TCAP_little = 100 * sum(d' : ps_tq = 1) / sum_{q : some ps_tq = 1} d'.q
--              (= DiSCO / DiS: Little et al. 2022, 2025, the vignette's "TCAP" from synthpop
--              1.9-3; NaN when no q is disclosive in the synthesis, as 0/0)
-- With tid (stacked targets): one row per target and synthesis, tid first (macros/cells by).
-- synthpop: D:489-502; TCAP_little: vignettes/disclosure.Rnw L504 at 9cc3081 (synthpop's
--          code prints TCAP, which the vignette calls TCAP_alt).

WITH target_margins AS (
  SELECT
    j,
    t,
    CAST(SUM(d) AS DOUBLE PRECISION) AS dt,
    CAST(SUM(SUM(d)) OVER (PARTITION BY j) AS DOUBLE PRECISION) AS nd
  FROM "__disco_cells"
  GROUP BY
    j,
    t
), base AS (
  SELECT
    j,
    100 * CAST(SUM(
      CAST((
        CAST(dt AS DOUBLE PRECISION) / nd
      ) * (
        CAST(dt AS DOUBLE PRECISION) / nd
      ) AS DECIMAL(38, 18))
    ) AS DOUBLE PRECISION) AS base_cap
  FROM target_margins
  GROUP BY
    j
), cap AS (
  SELECT
    j,
    SUM(dq) AS nd,
    SUM(sq) AS ns,
    CAST(SUM(
      CAST(CASE WHEN dq_keep > 0 THEN CAST(dd_keep AS DOUBLE PRECISION) / dq_keep ELSE 0 END AS DECIMAL(38, 18))
    ) AS DOUBLE PRECISION) AS capd,
    CAST(SUM(
      CAST(CASE WHEN sq_keep > 0 THEN CAST(ss_keep AS DOUBLE PRECISION) / sq_keep ELSE 0 END AS DECIMAL(38, 18))
    ) AS DOUBLE PRECISION) AS caps,
    CAST(SUM(
      CAST(CASE WHEN sq_keep > 0 THEN CAST(ds_keep AS DOUBLE PRECISION) / sq_keep ELSE 0 END AS DECIMAL(38, 18))
    ) AS DOUBLE PRECISION) AS dcap,
    SUM(CASE WHEN s_levels = 1 THEN syn_d_keep ELSE 0 END) AS disco,
    SUM(CASE WHEN sq_keep > 0 THEN dq_keep ELSE 0 END) AS tcap_den,
    SUM(CASE WHEN s_levels = 1 THEN dq_keep ELSE 0 END) AS dis
  FROM "__disco_qcells"
  GROUP BY
    j
)
SELECT
  cap.j AS synthesis,
  base.base_cap AS "baseCAPd",
  CASE
    WHEN cap.nd = 0
    THEN CAST('NaN' AS DOUBLE PRECISION)
    ELSE 100 * CAST(cap.capd AS DOUBLE PRECISION) / CAST(cap.nd AS DOUBLE PRECISION)
  END AS "CAPd",
  CASE
    WHEN cap.ns = 0
    THEN CAST('NaN' AS DOUBLE PRECISION)
    ELSE 100 * CAST(cap.caps AS DOUBLE PRECISION) / CAST(cap.ns AS DOUBLE PRECISION)
  END AS "CAPs",
  CASE
    WHEN cap.nd = 0
    THEN CAST('NaN' AS DOUBLE PRECISION)
    ELSE 100 * CAST(cap.dcap AS DOUBLE PRECISION) / CAST(cap.nd AS DOUBLE PRECISION)
  END AS "DCAP",
  CASE
    WHEN cap.tcap_den = 0
    THEN CAST('NaN' AS DOUBLE PRECISION)
    ELSE 100 * CAST(cap.disco AS DOUBLE PRECISION) / CAST(cap.tcap_den AS DOUBLE PRECISION)
  END AS "TCAP",
  CASE
    WHEN cap.dis = 0
    THEN CAST('NaN' AS DOUBLE PRECISION)
    ELSE 100 * CAST(cap.disco AS DOUBLE PRECISION) / CAST(cap.dis AS DOUBLE PRECISION)
  END AS "TCAP_little"
FROM cap
INNER JOIN base
  ON base.j = cap.j
ORDER BY
  cap.j;

-- measures/exclusions.sql.j2
-- Exclusion bookkeeping: synthpop's Nexclusions, in long form.
-- Inputs: the cells (stage 040): step_d / step_s say at which step a cell left the original /
--         synthetic based tables (0 = kept); the q margins (stage 045, qcells): the one
--         disclosive cell of q with its step (syn_*, orig_*), and the original records of q
--         by step (d_step_k). Context: steps, the steps a cell can have (stage 045's); every
--         other step counts 0.
-- Output: synthesis, table, reason, count -- for each synthesis, each of the 8 tables
--         (original, synthetic, Dorig, Dsyn, iS, DiS, DiSCO, DiSDiO) and each step
--         (excluded target, missing target, missing in keys, set to exclude, over denom_lim,
--         remaining): the records of that table removed at that step, or kept ("remaining").
-- With tid (stacked targets): tid first, the rows of each target in turn (macros/cells by).
-- synthpop: D:374-450 (tab_exclude applied to every table separately).

WITH tables AS (
  /* tables 1, 3, 5-8 count original records (by step_d), 2 and 4 synthetic ones (by step_s) */
  SELECT
    1 AS tpos,
    'original' AS tbl
  UNION ALL
  SELECT
    2,
    'synthetic'
  UNION ALL
  SELECT
    3,
    'Dorig'
  UNION ALL
  SELECT
    4,
    'Dsyn'
  UNION ALL
  SELECT
    5,
    'iS'
  UNION ALL
  SELECT
    6,
    'DiS'
  UNION ALL
  SELECT
    7,
    'DiSCO'
  UNION ALL
  SELECT
    8,
    'DiSDiO'
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
), by_cell /* one pass over the cells and one over the q margins: every table's count of each step */ AS (
  SELECT
    j,
    SUM(CASE WHEN step_d = 0 THEN d ELSE 0 END) AS "n_1_0",
    SUM(CASE WHEN step_s = 0 THEN s ELSE 0 END) AS "n_2_0",
    SUM(CASE WHEN step_d = 1 THEN d ELSE 0 END) AS "n_1_1",
    SUM(CASE WHEN step_s = 1 THEN s ELSE 0 END) AS "n_2_1",
    SUM(CASE WHEN step_d = 3 THEN d ELSE 0 END) AS "n_1_3",
    SUM(CASE WHEN step_s = 3 THEN s ELSE 0 END) AS "n_2_3",
    SUM(CASE WHEN step_d = 4 THEN d ELSE 0 END) AS "n_1_4",
    SUM(CASE WHEN step_s = 4 THEN s ELSE 0 END) AS "n_2_4"
  FROM "__disco_cells"
  GROUP BY
    j
), by_q AS (
  SELECT
    j,
    SUM(CASE WHEN d_levels = 1 AND orig_step_d = 0 THEN dq ELSE 0 END) AS "n_3_0",
    SUM(CASE WHEN s_levels = 1 AND syn_step_s = 0 THEN sq ELSE 0 END) AS "n_4_0",
    SUM(CASE WHEN sq > 0 THEN "d_step_0" ELSE 0 END) AS "n_5_0",
    SUM(CASE WHEN s_levels = 1 THEN "d_step_0" ELSE 0 END) AS "n_6_0",
    SUM(CASE WHEN s_levels = 1 AND syn_step_d = 0 THEN syn_d ELSE 0 END) AS "n_7_0",
    SUM(
      CASE
        WHEN s_levels = 1 AND d_levels = 1 AND syn_d = dq AND syn_step_d = 0
        THEN syn_d
        ELSE 0
      END
    ) AS "n_8_0",
    SUM(CASE WHEN d_levels = 1 AND orig_step_d = 1 THEN dq ELSE 0 END) AS "n_3_1",
    SUM(CASE WHEN s_levels = 1 AND syn_step_s = 1 THEN sq ELSE 0 END) AS "n_4_1",
    SUM(CASE WHEN sq > 0 THEN "d_step_1" ELSE 0 END) AS "n_5_1",
    SUM(CASE WHEN s_levels = 1 THEN "d_step_1" ELSE 0 END) AS "n_6_1",
    SUM(CASE WHEN s_levels = 1 AND syn_step_d = 1 THEN syn_d ELSE 0 END) AS "n_7_1",
    SUM(
      CASE
        WHEN s_levels = 1 AND d_levels = 1 AND syn_d = dq AND syn_step_d = 1
        THEN syn_d
        ELSE 0
      END
    ) AS "n_8_1",
    SUM(CASE WHEN d_levels = 1 AND orig_step_d = 3 THEN dq ELSE 0 END) AS "n_3_3",
    SUM(CASE WHEN s_levels = 1 AND syn_step_s = 3 THEN sq ELSE 0 END) AS "n_4_3",
    SUM(CASE WHEN sq > 0 THEN "d_step_3" ELSE 0 END) AS "n_5_3",
    SUM(CASE WHEN s_levels = 1 THEN "d_step_3" ELSE 0 END) AS "n_6_3",
    SUM(CASE WHEN s_levels = 1 AND syn_step_d = 3 THEN syn_d ELSE 0 END) AS "n_7_3",
    SUM(
      CASE
        WHEN s_levels = 1 AND d_levels = 1 AND syn_d = dq AND syn_step_d = 3
        THEN syn_d
        ELSE 0
      END
    ) AS "n_8_3",
    SUM(CASE WHEN d_levels = 1 AND orig_step_d = 4 THEN dq ELSE 0 END) AS "n_3_4",
    SUM(CASE WHEN s_levels = 1 AND syn_step_s = 4 THEN sq ELSE 0 END) AS "n_4_4",
    SUM(CASE WHEN sq > 0 THEN "d_step_4" ELSE 0 END) AS "n_5_4",
    SUM(CASE WHEN s_levels = 1 THEN "d_step_4" ELSE 0 END) AS "n_6_4",
    SUM(CASE WHEN s_levels = 1 AND syn_step_d = 4 THEN syn_d ELSE 0 END) AS "n_7_4",
    SUM(
      CASE
        WHEN s_levels = 1 AND d_levels = 1 AND syn_d = dq AND syn_step_d = 4
        THEN syn_d
        ELSE 0
      END
    ) AS "n_8_4"
  FROM "__disco_qcells"
  GROUP BY
    j
)
SELECT
  by_cell.j AS synthesis,
  tables.tbl AS "table",
  reasons.reason,
  CAST(CASE
    WHEN tables.tpos = 1 AND reasons.step = 0
    THEN by_cell."n_1_0"
    WHEN tables.tpos = 2 AND reasons.step = 0
    THEN by_cell."n_2_0"
    WHEN tables.tpos = 3 AND reasons.step = 0
    THEN by_q."n_3_0"
    WHEN tables.tpos = 4 AND reasons.step = 0
    THEN by_q."n_4_0"
    WHEN tables.tpos = 5 AND reasons.step = 0
    THEN by_q."n_5_0"
    WHEN tables.tpos = 6 AND reasons.step = 0
    THEN by_q."n_6_0"
    WHEN tables.tpos = 7 AND reasons.step = 0
    THEN by_q."n_7_0"
    WHEN tables.tpos = 8 AND reasons.step = 0
    THEN by_q."n_8_0"
    WHEN tables.tpos = 1 AND reasons.step = 1
    THEN by_cell."n_1_1"
    WHEN tables.tpos = 2 AND reasons.step = 1
    THEN by_cell."n_2_1"
    WHEN tables.tpos = 3 AND reasons.step = 1
    THEN by_q."n_3_1"
    WHEN tables.tpos = 4 AND reasons.step = 1
    THEN by_q."n_4_1"
    WHEN tables.tpos = 5 AND reasons.step = 1
    THEN by_q."n_5_1"
    WHEN tables.tpos = 6 AND reasons.step = 1
    THEN by_q."n_6_1"
    WHEN tables.tpos = 7 AND reasons.step = 1
    THEN by_q."n_7_1"
    WHEN tables.tpos = 8 AND reasons.step = 1
    THEN by_q."n_8_1"
    WHEN tables.tpos = 1 AND reasons.step = 3
    THEN by_cell."n_1_3"
    WHEN tables.tpos = 2 AND reasons.step = 3
    THEN by_cell."n_2_3"
    WHEN tables.tpos = 3 AND reasons.step = 3
    THEN by_q."n_3_3"
    WHEN tables.tpos = 4 AND reasons.step = 3
    THEN by_q."n_4_3"
    WHEN tables.tpos = 5 AND reasons.step = 3
    THEN by_q."n_5_3"
    WHEN tables.tpos = 6 AND reasons.step = 3
    THEN by_q."n_6_3"
    WHEN tables.tpos = 7 AND reasons.step = 3
    THEN by_q."n_7_3"
    WHEN tables.tpos = 8 AND reasons.step = 3
    THEN by_q."n_8_3"
    WHEN tables.tpos = 1 AND reasons.step = 4
    THEN by_cell."n_1_4"
    WHEN tables.tpos = 2 AND reasons.step = 4
    THEN by_cell."n_2_4"
    WHEN tables.tpos = 3 AND reasons.step = 4
    THEN by_q."n_3_4"
    WHEN tables.tpos = 4 AND reasons.step = 4
    THEN by_q."n_4_4"
    WHEN tables.tpos = 5 AND reasons.step = 4
    THEN by_q."n_5_4"
    WHEN tables.tpos = 6 AND reasons.step = 4
    THEN by_q."n_6_4"
    WHEN tables.tpos = 7 AND reasons.step = 4
    THEN by_q."n_7_4"
    WHEN tables.tpos = 8 AND reasons.step = 4
    THEN by_q."n_8_4"
    ELSE 0
  END AS BIGINT) AS "count"
FROM by_cell
INNER JOIN by_q
  ON by_q.j = by_cell.j
CROSS JOIN tables
CROSS JOIN reasons
ORDER BY
  by_cell.j,
  tables.tpos,
  reasons.rpos;

-- checks/check_1way.sql.j2
-- check_1way: is one target level dominating the DiSCO records? One row per synthesis where it fires.
-- Inputs: the cells (stage 040) and q margins (stage 045); after exclusions. target: how to name
--         a level (macros/cells).
-- Params: $thresh_1way_n, $thresh_1way_pct. Context: steps (stage 040: d_keep only if > [0]).
-- Output: synthesis, Level, All, PctLevelAll, totalDisclosive, nLevelDis, PctLevelDis
--   Level       = the level with most DiSCO records (ties: smallest level name)
--   nLevelDis   = its DiSCO records;  totalDisclosive = all DiSCO records
--   PctLevelDis = 100 * nLevelDis / totalDisclosive
--   All         = original records after exclusions; PctLevelAll = 100 * (records of Level) / All
-- Fires iff nLevelDis > $thresh_1way_n and PctLevelDis > $thresh_1way_pct (both strict).
-- With tid (stacked targets): tid first, target by target (macros/cells by; the level names from
-- the stacked dictionary of the targets).
-- synthpop: D:509-525.

WITH by_level AS (
  /* every target level of the cells, with the DiSCO records of the q whose one synthetic */
  /* cell has that level (stage 045) */
  SELECT
    a.j,
    a.t,
    a.n_all,
    COALESCE(x.n_dis, 0) AS n_dis
  FROM (
    SELECT
      j,
      t,
      SUM(d_keep) AS n_all
    FROM "__disco_cells"
    GROUP BY
      j,
      t
  ) AS a
  LEFT JOIN (
    SELECT
      j,
      syn_t AS t,
      SUM(syn_d_keep) AS n_dis
    FROM "__disco_qcells"
    WHERE
      s_levels = 1
    GROUP BY
      j,
      syn_t
  ) AS x
    ON x.j = a.j AND x.t = a.t
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
    FROM "__disco_levels_t0" AS __disco_d
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
    ROW_NUMBER() OVER (PARTITION BY j ORDER BY n_dis DESC NULLS LAST, t COLLATE "C") AS rank_dis
  FROM named
)
SELECT
  j AS synthesis,
  t AS "Level",
  CAST(total_all AS BIGINT) AS "All",
  CASE
    WHEN total_all = 0
    THEN CAST('NaN' AS DOUBLE PRECISION)
    ELSE 100 * CAST(n_all AS DOUBLE PRECISION) / CAST(total_all AS DOUBLE PRECISION)
  END AS "PctLevelAll",
  CAST(total_dis AS BIGINT) AS "totalDisclosive",
  CAST(n_dis AS BIGINT) AS "nLevelDis",
  CASE
    WHEN total_dis = 0
    THEN CAST('NaN' AS DOUBLE PRECISION)
    ELSE 100 * CAST(n_dis AS DOUBLE PRECISION) / CAST(total_dis AS DOUBLE PRECISION)
  END AS "PctLevelDis"
FROM ranked
WHERE
  rank_dis = 1
  AND n_dis > CAST('50.0' AS DOUBLE PRECISION)
  AND total_dis > 0
  AND 100 * CAST(n_dis AS DOUBLE PRECISION) / CAST(total_dis AS DOUBLE PRECISION) > CAST('90.0' AS DOUBLE PRECISION)
ORDER BY
  j;

-- checks/check_2way.sql.j2
-- check_2way: (target level, key level) pairs that carry many DiSCO records and where the key level
-- almost determines the target in the original.
-- Inputs: the cells (stage 040) and q margins (stage 045, qcells: a q's one synthetic cell is
--         its DiSCO cell); target and keys say how to read and name levels (macros/cells).
-- Params: $thresh_2way_n, $thresh_2way_pct; the key names (keys[].name_param).
-- Context: keys = [{..., name_param}]; one_pass_sets (How, below). Only cells with original
--         records are read: with $thresh_2way_n >= 0 (spec.py refuses a negative count) no
--         other cell can count, and they are many.
-- Output: synthesis, target_key_levs ("<target level>|<key level>"), npairs, key,
--         key_target_total, key_total, PctTargetKeyLevel
--   npairs            = DiSCO records (after exclusions) in cells with more than $thresh_2way_n
--                       of them, summed per (target level, key level)
--   key_total         = original records with that key level (ALL records, before exclusions)
--   key_target_total  = of those, records with that target level
--   PctTargetKeyLevel = 100 * key_target_total / key_total; rows kept iff npairs > 0 and
--                       PctTargetKeyLevel > $thresh_2way_pct.
-- How:    the cells are read once; every key's totals come from one aggregation by (key,
--         key level, target level). With one_pass_sets (Python decides: the engine's GROUPING
--         SETS are one pass, sql/dialects.Dialect.grouping_sets) that is a grouping set per key
--         over the cells, each key's level decoded from q; elsewhere the cells are unpivoted by
--         key first (one row per cell and key), which is what Spark's GROUPING SETS would do
--         anyway. The big cells (DiSCO cells with d' > $thresh_2way_n) come from the q margins,
--         unpivoted, and are few; without any, the cells are not read.
-- With tid (stacked targets): tid first, target by target (macros/cells by; the target's level
-- names from the stacked dictionary of the targets).
-- Order: npairs descending, then key position, then target_key_levs.  synthpop: D:530-572.

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
      c.s_levels = 1 AND c.syn_d_keep > CAST('4.0' AS DOUBLE PRECISION)
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
      CASE
        WHEN GROUPING("k_0") = 0
        THEN 0
        WHEN GROUPING("k_1") = 0
        THEN 1
        WHEN GROUPING("k_2") = 0
        THEN 2
        WHEN GROUPING("k_3") = 0
        THEN 3
      END AS key_pos,
      COALESCE("k_0", "k_1", "k_2", "k_3") AS key_level, /* a key level is a code, never NULL: the one of the set's key */
      t,
      SUM(d) AS key_target_total
    FROM (
      SELECT
        c.j,
        (
          CAST((
            CAST(c."q_0" AS BIGINT) / CAST(1 AS BIGINT)
          ) AS BIGINT) % CAST(3 AS BIGINT)
        ) AS "k_0",
        (
          CAST((
            CAST(c."q_0" AS BIGINT) / CAST(3 AS BIGINT)
          ) AS BIGINT) % CAST(80 AS BIGINT)
        ) AS "k_1",
        (
          CAST((
            CAST(c."q_0" AS BIGINT) / CAST(240 AS BIGINT)
          ) AS BIGINT) % CAST(17 AS BIGINT)
        ) AS "k_2",
        (
          CAST((
            CAST(c."q_0" AS BIGINT) / CAST(4080 AS BIGINT)
          ) AS BIGINT) % CAST(7 AS BIGINT)
        ) AS "k_3",
        c.t,
        c.d
      FROM "__disco_cells" AS c
      WHERE
        c.d > 0 AND EXISTS(
          SELECT
            1
          FROM big
        )
    ) AS by_cell
    GROUP BY
      GROUPING SETS (
        (j, "k_0", t),
        (j, "k_1", t),
        (j, "k_2", t),
        (j, "k_3", t)
      )
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
    END AS "key",
    CAST(p.key_target_total AS BIGINT) AS key_target_total,
    CAST(p.key_total AS BIGINT) AS key_total,
    CASE
      WHEN p.key_total = 0
      THEN CAST('NaN' AS DOUBLE PRECISION)
      ELSE 100 * CAST(p.key_target_total AS DOUBLE PRECISION) / CAST(p.key_total AS DOUBLE PRECISION)
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
    100 * CAST(p.key_target_total AS DOUBLE PRECISION) / CAST(p.key_total AS DOUBLE PRECISION) > CAST('80.0' AS DOUBLE PRECISION)
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
  npairs DESC NULLS LAST,
  key_pos,
  target_key_levs COLLATE "C";

-- measures/disco_curve.sql.j2
-- DiSCO(tau), the certainty curve: one row per synthesis and distinct probability of correct
-- attribution ps among the original records, DiSCO at tau = ps (percentages).
-- Each original record of cell (q, t) is attributed its own target level with probability
--     ps_tq = s_tq / s.q from the synthesis (0 when s.q = 0: no synthetic record has key q),
-- and DiSCO(tau) = 100 * sum(d'_tq : ps_tq >= tau) / Nd.
-- Flags and counts as DiSCO's (measures/attribute): ps from the counts BEFORE exclusions,
-- the records counted AFTER them (d'), over Nd before them. Hence, always, DiSCO(1) = DiSCO;
-- and where no exclusion applies (d' = d, s' = s), the area under the curve from 0 to 1,
-- sum_i (ps_i - ps_(i-1)) * DiSCO(ps_i) with ps_0 = 0, is DCAP (synthpop's DCAP, over Nd,
-- = the vignette's DCAPorig), a mean of probabilities being the integral of its tail. With
-- exclusions DCAP uses ps' (after them) and that identity no longer holds.
-- Rows: the ps of cells with d' > 0 (ps = 0 included when some counted record has it); none
-- for a synthesis with no counted record. ps is a double, s_tq / s.q correctly rounded, so
-- tau = 0.8 selects s_tq / s.q = 4 / 5.
-- Inputs: the cells (stage 040: j, q, t, d, s[, d_keep]) and q margins (stage 045: sq, dq).
-- Output: synthesis, ps, DiSCO; by synthesis, then ps (with tid: tid first).
-- synthpop: the measure the vignette announces (vignettes/disclosure.Rnw L161 at 9cc3081:
--          "a record is considered disclosive if its probability of correct attribution
--          reaches a threshold tau"); DiSCO D:477-484, DCAP D:493.

WITH probs AS (
  /* only a cell with s > 0 needs its q's s.q (then s.q >= s > 0): the others have ps = 0 */
  /* without the join, which is most of this statement's work (docs/performance.md) */
  SELECT
    c.j,
    CAST(c.s AS DOUBLE PRECISION) / CAST(m.sq AS DOUBLE PRECISION) AS ps,
    c.d_keep AS dk
  FROM "__disco_cells" AS c
  INNER JOIN "__disco_qcells" AS m
    ON m.j = c.j AND m."q_0" = c."q_0"
  WHERE
    c.d_keep > 0 AND c.s > 0
  UNION ALL
  SELECT
    j,
    0.0 AS ps,
    d_keep AS dk
  FROM "__disco_cells"
  WHERE
    d_keep > 0 AND s = 0
), steps AS (
  SELECT
    j,
    ps,
    CAST(SUM(dk) AS BIGINT) AS n
  FROM probs
  GROUP BY
    j,
    ps
), totals AS (
  SELECT
    j,
    CAST(SUM(dq) AS BIGINT) AS nd
  FROM "__disco_qcells"
  GROUP BY
    j
)
SELECT
  s.j AS synthesis,
  s.ps,
  CASE
    WHEN t.nd = 0
    THEN CAST('NaN' AS DOUBLE PRECISION)
    ELSE 100 * CAST(SUM(s.n) OVER (
      PARTITION BY s.j
      ORDER BY s.ps DESC NULLS LAST
      rows BETWEEN UNBOUNDED preceding AND CURRENT ROW
    ) AS DOUBLE PRECISION) / CAST(t.nd AS DOUBLE PRECISION)
  END AS "DiSCO"
FROM steps AS s
INNER JOIN totals AS t
  ON t.j = s.j
ORDER BY
  s.j,
  s.ps;

DROP TABLE IF EXISTS "__disco_cells";

DROP TABLE IF EXISTS "__disco_qcells";

DROP TABLE IF EXISTS "__disco_levels_k0";

DROP TABLE IF EXISTS "__disco_levels_k1";

DROP TABLE IF EXISTS "__disco_levels_k2";

DROP TABLE IF EXISTS "__disco_levels_k3";

DROP TABLE IF EXISTS "__disco_levels_t0";

DROP TABLE IF EXISTS "__disco_guard";
