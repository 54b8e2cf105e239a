CREATE TEMPORARY TABLE "__disco_qcells" AS
SELECT
  "j",
  "q_0",
  CAST(SUM("d") AS BIGINT) AS "dq",
  CAST(SUM("s") AS BIGINT) AS "sq",
  CAST(SUM("d_keep") AS BIGINT) AS "dq_keep",
  CAST(SUM("s_keep") AS BIGINT) AS "sq_keep",
  COUNT(CASE WHEN "d" > 0 THEN 1 END) AS "d_levels",
  COUNT(CASE WHEN "s" > 0 THEN 1 END) AS "s_levels",
  MAX(CASE WHEN "s" > 0 THEN "t" END) AS "syn_t",
  CAST(SUM(CASE WHEN "s" > 0 THEN "d" ELSE 0 END) AS BIGINT) AS "syn_d",
  CAST(SUM(CASE WHEN "s" > 0 THEN "d_keep" ELSE 0 END) AS BIGINT) AS "syn_d_keep",
  CAST(SUM(CASE WHEN "s" > 0 THEN "s_keep" ELSE 0 END) AS BIGINT) AS "syn_s_keep",
  MAX(CASE WHEN "s" > 0 THEN "step_d" END) AS "syn_step_d",
  MAX(CASE WHEN "s" > 0 THEN "step_s" END) AS "syn_step_s",
  CAST(SUM(CASE WHEN "d" > 0 THEN "d_keep" ELSE 0 END) AS BIGINT) AS "orig_d_keep",
  MAX(CASE WHEN "d" > 0 THEN "step_d" END) AS "orig_step_d",
  CAST(SUM(CAST("d_keep" AS BIGINT) * "d_keep") AS BIGINT) AS "dd_keep", /* products of BIGINT (counts may be INTEGER, whose square overflows) */
  CAST(SUM(CAST("s_keep" AS BIGINT) * "s_keep") AS BIGINT) AS "ss_keep",
  CAST(SUM(CAST("d_keep" AS BIGINT) * "s_keep") AS BIGINT) AS "ds_keep",
  CAST(SUM(CASE WHEN "step_d" = 0 THEN "d" ELSE 0 END) AS BIGINT) AS "d_step_0",
  CAST(SUM(CASE WHEN "step_d" = 1 THEN "d" ELSE 0 END) AS BIGINT) AS "d_step_1",
  CAST(SUM(CASE WHEN "step_d" = 3 THEN "d" ELSE 0 END) AS BIGINT) AS "d_step_3",
  CAST(SUM(CASE WHEN "step_d" = 4 THEN "d" ELSE 0 END) AS BIGINT) AS "d_step_4"
FROM "__disco_cells"
GROUP BY
  "j",
  "q_0";
