CREATE TABLE "__disco_levels_k0" AS
WITH named AS (
  SELECT
    v,
    COALESCE(CAST("__disco_x" AS VARCHAR), 'Missing') AS level
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
    COALESCE(CAST("__disco_x" AS VARCHAR), 'Missing') AS level
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
    COALESCE(CAST("__disco_x" AS VARCHAR), 'Missing') AS level
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
  CAST(CASE WHEN na = 1 THEN 0 ELSE DENSE_RANK() OVER (PARTITION BY na ORDER BY level) END AS BIGINT) AS code /* BIGINT where it is made: dense_rank() is a 32-bit INT on Spark, a DECIMAL elsewhere */
FROM (
  /* code 0 or not, decided once per value (na_only_missing reads the raw value's text) */
  SELECT
    v,
    level,
    CASE WHEN level = 'Missing' THEN 1 ELSE 0 END AS na
  FROM one_per_value
) AS __disco_v;
