WITH "tables" AS (
  /* tables 1, 3, 5-8 count original records (by step_d), 2 and 4 synthetic ones (by step_s) */
  SELECT
    1 AS "tpos",
    'original' AS "tbl"
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
), "reasons" AS (
  SELECT
    1 AS "step",
    1 AS "rpos",
    'excluded target' AS "reason"
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
), "by_cell" /* one pass over the cells and one over the q margins: every table's count of each step */ AS (
  SELECT
    "j",
    SUM(CASE WHEN "step_d" = 0 THEN "d" ELSE 0 END) AS "n_1_0",
    SUM(CASE WHEN "step_s" = 0 THEN "s" ELSE 0 END) AS "n_2_0",
    SUM(CASE WHEN "step_d" = 1 THEN "d" ELSE 0 END) AS "n_1_1",
    SUM(CASE WHEN "step_s" = 1 THEN "s" ELSE 0 END) AS "n_2_1",
    SUM(CASE WHEN "step_d" = 3 THEN "d" ELSE 0 END) AS "n_1_3",
    SUM(CASE WHEN "step_s" = 3 THEN "s" ELSE 0 END) AS "n_2_3",
    SUM(CASE WHEN "step_d" = 4 THEN "d" ELSE 0 END) AS "n_1_4",
    SUM(CASE WHEN "step_s" = 4 THEN "s" ELSE 0 END) AS "n_2_4"
  FROM "__disco_cells"
  GROUP BY
    "j"
), "by_q" AS (
  SELECT
    "j",
    SUM(CASE WHEN "d_levels" = 1 AND "orig_step_d" = 0 THEN "dq" ELSE 0 END) AS "n_3_0",
    SUM(CASE WHEN "s_levels" = 1 AND "syn_step_s" = 0 THEN "sq" ELSE 0 END) AS "n_4_0",
    SUM(CASE WHEN "sq" > 0 THEN "d_step_0" ELSE 0 END) AS "n_5_0",
    SUM(CASE WHEN "s_levels" = 1 THEN "d_step_0" ELSE 0 END) AS "n_6_0",
    SUM(CASE WHEN "s_levels" = 1 AND "syn_step_d" = 0 THEN "syn_d" ELSE 0 END) AS "n_7_0",
    SUM(
      CASE
        WHEN "s_levels" = 1 AND "d_levels" = 1 AND "syn_d" = "dq" AND "syn_step_d" = 0
        THEN "syn_d"
        ELSE 0
      END
    ) AS "n_8_0",
    SUM(CASE WHEN "d_levels" = 1 AND "orig_step_d" = 1 THEN "dq" ELSE 0 END) AS "n_3_1",
    SUM(CASE WHEN "s_levels" = 1 AND "syn_step_s" = 1 THEN "sq" ELSE 0 END) AS "n_4_1",
    SUM(CASE WHEN "sq" > 0 THEN "d_step_1" ELSE 0 END) AS "n_5_1",
    SUM(CASE WHEN "s_levels" = 1 THEN "d_step_1" ELSE 0 END) AS "n_6_1",
    SUM(CASE WHEN "s_levels" = 1 AND "syn_step_d" = 1 THEN "syn_d" ELSE 0 END) AS "n_7_1",
    SUM(
      CASE
        WHEN "s_levels" = 1 AND "d_levels" = 1 AND "syn_d" = "dq" AND "syn_step_d" = 1
        THEN "syn_d"
        ELSE 0
      END
    ) AS "n_8_1",
    SUM(CASE WHEN "d_levels" = 1 AND "orig_step_d" = 3 THEN "dq" ELSE 0 END) AS "n_3_3",
    SUM(CASE WHEN "s_levels" = 1 AND "syn_step_s" = 3 THEN "sq" ELSE 0 END) AS "n_4_3",
    SUM(CASE WHEN "sq" > 0 THEN "d_step_3" ELSE 0 END) AS "n_5_3",
    SUM(CASE WHEN "s_levels" = 1 THEN "d_step_3" ELSE 0 END) AS "n_6_3",
    SUM(CASE WHEN "s_levels" = 1 AND "syn_step_d" = 3 THEN "syn_d" ELSE 0 END) AS "n_7_3",
    SUM(
      CASE
        WHEN "s_levels" = 1 AND "d_levels" = 1 AND "syn_d" = "dq" AND "syn_step_d" = 3
        THEN "syn_d"
        ELSE 0
      END
    ) AS "n_8_3",
    SUM(CASE WHEN "d_levels" = 1 AND "orig_step_d" = 4 THEN "dq" ELSE 0 END) AS "n_3_4",
    SUM(CASE WHEN "s_levels" = 1 AND "syn_step_s" = 4 THEN "sq" ELSE 0 END) AS "n_4_4",
    SUM(CASE WHEN "sq" > 0 THEN "d_step_4" ELSE 0 END) AS "n_5_4",
    SUM(CASE WHEN "s_levels" = 1 THEN "d_step_4" ELSE 0 END) AS "n_6_4",
    SUM(CASE WHEN "s_levels" = 1 AND "syn_step_d" = 4 THEN "syn_d" ELSE 0 END) AS "n_7_4",
    SUM(
      CASE
        WHEN "s_levels" = 1 AND "d_levels" = 1 AND "syn_d" = "dq" AND "syn_step_d" = 4
        THEN "syn_d"
        ELSE 0
      END
    ) AS "n_8_4"
  FROM "__disco_qcells"
  GROUP BY
    "j"
)
SELECT
  "by_cell"."j" AS "synthesis",
  "tables"."tbl" AS "table",
  "reasons"."reason",
  CAST(CASE
    WHEN "tables"."tpos" = 1 AND "reasons"."step" = 0
    THEN "by_cell"."n_1_0"
    WHEN "tables"."tpos" = 2 AND "reasons"."step" = 0
    THEN "by_cell"."n_2_0"
    WHEN "tables"."tpos" = 3 AND "reasons"."step" = 0
    THEN "by_q"."n_3_0"
    WHEN "tables"."tpos" = 4 AND "reasons"."step" = 0
    THEN "by_q"."n_4_0"
    WHEN "tables"."tpos" = 5 AND "reasons"."step" = 0
    THEN "by_q"."n_5_0"
    WHEN "tables"."tpos" = 6 AND "reasons"."step" = 0
    THEN "by_q"."n_6_0"
    WHEN "tables"."tpos" = 7 AND "reasons"."step" = 0
    THEN "by_q"."n_7_0"
    WHEN "tables"."tpos" = 8 AND "reasons"."step" = 0
    THEN "by_q"."n_8_0"
    WHEN "tables"."tpos" = 1 AND "reasons"."step" = 1
    THEN "by_cell"."n_1_1"
    WHEN "tables"."tpos" = 2 AND "reasons"."step" = 1
    THEN "by_cell"."n_2_1"
    WHEN "tables"."tpos" = 3 AND "reasons"."step" = 1
    THEN "by_q"."n_3_1"
    WHEN "tables"."tpos" = 4 AND "reasons"."step" = 1
    THEN "by_q"."n_4_1"
    WHEN "tables"."tpos" = 5 AND "reasons"."step" = 1
    THEN "by_q"."n_5_1"
    WHEN "tables"."tpos" = 6 AND "reasons"."step" = 1
    THEN "by_q"."n_6_1"
    WHEN "tables"."tpos" = 7 AND "reasons"."step" = 1
    THEN "by_q"."n_7_1"
    WHEN "tables"."tpos" = 8 AND "reasons"."step" = 1
    THEN "by_q"."n_8_1"
    WHEN "tables"."tpos" = 1 AND "reasons"."step" = 3
    THEN "by_cell"."n_1_3"
    WHEN "tables"."tpos" = 2 AND "reasons"."step" = 3
    THEN "by_cell"."n_2_3"
    WHEN "tables"."tpos" = 3 AND "reasons"."step" = 3
    THEN "by_q"."n_3_3"
    WHEN "tables"."tpos" = 4 AND "reasons"."step" = 3
    THEN "by_q"."n_4_3"
    WHEN "tables"."tpos" = 5 AND "reasons"."step" = 3
    THEN "by_q"."n_5_3"
    WHEN "tables"."tpos" = 6 AND "reasons"."step" = 3
    THEN "by_q"."n_6_3"
    WHEN "tables"."tpos" = 7 AND "reasons"."step" = 3
    THEN "by_q"."n_7_3"
    WHEN "tables"."tpos" = 8 AND "reasons"."step" = 3
    THEN "by_q"."n_8_3"
    WHEN "tables"."tpos" = 1 AND "reasons"."step" = 4
    THEN "by_cell"."n_1_4"
    WHEN "tables"."tpos" = 2 AND "reasons"."step" = 4
    THEN "by_cell"."n_2_4"
    WHEN "tables"."tpos" = 3 AND "reasons"."step" = 4
    THEN "by_q"."n_3_4"
    WHEN "tables"."tpos" = 4 AND "reasons"."step" = 4
    THEN "by_q"."n_4_4"
    WHEN "tables"."tpos" = 5 AND "reasons"."step" = 4
    THEN "by_q"."n_5_4"
    WHEN "tables"."tpos" = 6 AND "reasons"."step" = 4
    THEN "by_q"."n_6_4"
    WHEN "tables"."tpos" = 7 AND "reasons"."step" = 4
    THEN "by_q"."n_7_4"
    WHEN "tables"."tpos" = 8 AND "reasons"."step" = 4
    THEN "by_q"."n_8_4"
    ELSE 0
  END AS BIGINT) AS "count"
FROM "by_cell"
INNER JOIN "by_q"
  ON "by_q"."j" = "by_cell"."j"
CROSS JOIN "tables"
CROSS JOIN "reasons"
ORDER BY
  "by_cell"."j",
  "tables"."tpos",
  "reasons"."rpos";
