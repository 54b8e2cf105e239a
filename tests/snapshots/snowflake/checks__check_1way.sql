WITH "by_level" AS (
  /* every target level of the cells, with the DiSCO records of the q whose one synthetic */
  /* cell has that level (stage 045) */
  SELECT
    "a"."j",
    "a"."t",
    "a"."n_all",
    COALESCE("x"."n_dis", 0) AS "n_dis"
  FROM (
    SELECT
      "j",
      "t",
      SUM("d_keep") AS "n_all"
    FROM "__disco_cells"
    GROUP BY
      "j",
      "t"
  ) AS "a"
  LEFT JOIN (
    SELECT
      "j",
      "syn_t" AS "t",
      SUM("syn_d_keep") AS "n_dis"
    FROM "__disco_qcells"
    WHERE
      "s_levels" = 1
    GROUP BY
      "j",
      "syn_t"
  ) AS "x"
    ON "x"."j" = "a"."j" AND "x"."t" = "a"."t"
), "named" AS (
  SELECT
    "b"."j",
    "n"."level" AS "t",
    "b"."n_all",
    "b"."n_dis"
  FROM "by_level" AS "b"
  INNER JOIN (
    SELECT DISTINCT
      "code",
      "level"
    FROM "__disco_levels_t0" AS "__disco_d"
  ) AS "n"
    ON "n"."code" = "b"."t"
), "ranked" AS (
  SELECT
    "j",
    "t",
    "n_all",
    "n_dis",
    SUM("n_all") OVER (PARTITION BY "j") AS "total_all",
    SUM("n_dis") OVER (PARTITION BY "j") AS "total_dis",
    ROW_NUMBER() OVER (PARTITION BY "j" ORDER BY "n_dis" DESC NULLS LAST, "t") AS "rank_dis"
  FROM "named"
)
SELECT
  "j" AS "synthesis",
  "t" AS "Level",
  CAST("total_all" AS BIGINT) AS "All",
  CASE
    WHEN "total_all" = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST("n_all" AS DOUBLE) / CAST("total_all" AS DOUBLE)
  END AS "PctLevelAll",
  CAST("total_dis" AS BIGINT) AS "totalDisclosive",
  CAST("n_dis" AS BIGINT) AS "nLevelDis",
  CASE
    WHEN "total_dis" = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST("n_dis" AS DOUBLE) / CAST("total_dis" AS DOUBLE)
  END AS "PctLevelDis"
FROM "ranked"
WHERE
  "rank_dis" = 1
  AND "n_dis" > CAST('50.0' AS DOUBLE)
  AND "total_dis" > 0
  AND 100 * CAST("n_dis" AS DOUBLE) / CAST("total_dis" AS DOUBLE) > CAST('90.0' AS DOUBLE)
ORDER BY
  "j";
