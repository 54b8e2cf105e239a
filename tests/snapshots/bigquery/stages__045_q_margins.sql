CREATE TEMPORARY TABLE `__disco_qcells` AS
SELECT
  j,
  `q_0`,
  CAST(SUM(d) AS INT64) AS dq,
  CAST(SUM(s) AS INT64) AS sq,
  CAST(SUM(d_keep) AS INT64) AS dq_keep,
  CAST(SUM(s_keep) AS INT64) AS sq_keep,
  COUNT(CASE WHEN d > 0 THEN 1 END) AS d_levels,
  COUNT(CASE WHEN s > 0 THEN 1 END) AS s_levels,
  MAX(CASE WHEN s > 0 THEN t END) AS syn_t,
  CAST(SUM(CASE WHEN s > 0 THEN d ELSE 0 END) AS INT64) AS syn_d,
  CAST(SUM(CASE WHEN s > 0 THEN d_keep ELSE 0 END) AS INT64) AS syn_d_keep,
  CAST(SUM(CASE WHEN s > 0 THEN s_keep ELSE 0 END) AS INT64) AS syn_s_keep,
  MAX(CASE WHEN s > 0 THEN step_d END) AS syn_step_d,
  MAX(CASE WHEN s > 0 THEN step_s END) AS syn_step_s,
  CAST(SUM(CASE WHEN d > 0 THEN d_keep ELSE 0 END) AS INT64) AS orig_d_keep,
  MAX(CASE WHEN d > 0 THEN step_d END) AS orig_step_d,
  CAST(SUM(CAST(d_keep AS INT64) * d_keep) AS INT64) AS dd_keep, /* products of BIGINT (counts may be INTEGER, whose square overflows) */
  CAST(SUM(CAST(s_keep AS INT64) * s_keep) AS INT64) AS ss_keep,
  CAST(SUM(CAST(d_keep AS INT64) * s_keep) AS INT64) AS ds_keep,
  CAST(SUM(CASE WHEN step_d = 0 THEN d ELSE 0 END) AS INT64) AS `d_step_0`,
  CAST(SUM(CASE WHEN step_d = 1 THEN d ELSE 0 END) AS INT64) AS `d_step_1`,
  CAST(SUM(CASE WHEN step_d = 3 THEN d ELSE 0 END) AS INT64) AS `d_step_3`,
  CAST(SUM(CASE WHEN step_d = 4 THEN d ELSE 0 END) AS INT64) AS `d_step_4`
FROM `__disco_cells`
GROUP BY
  j,
  `q_0`;
