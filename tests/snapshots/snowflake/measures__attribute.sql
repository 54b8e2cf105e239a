SELECT
  "j" AS "synthesis",
  CASE
    WHEN SUM("dq") = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(SUM(CASE WHEN "d_levels" = 1 THEN "orig_d_keep" ELSE 0 END) AS DOUBLE) / CAST(SUM("dq") AS DOUBLE)
  END AS "Dorig",
  CASE
    WHEN SUM("sq") = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(SUM(CASE WHEN "s_levels" = 1 THEN "syn_s_keep" ELSE 0 END) AS DOUBLE) / CAST(SUM("sq") AS DOUBLE)
  END AS "Dsyn",
  CASE
    WHEN SUM("dq") = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(SUM(CASE WHEN "sq" > 0 THEN "dq_keep" ELSE 0 END) AS DOUBLE) / CAST(SUM("dq") AS DOUBLE)
  END AS "iS",
  CASE
    WHEN SUM("dq") = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(SUM(CASE WHEN "s_levels" = 1 THEN "dq_keep" ELSE 0 END) AS DOUBLE) / CAST(SUM("dq") AS DOUBLE)
  END AS "DiS",
  CASE
    WHEN SUM("dq") = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(SUM(CASE WHEN "s_levels" = 1 THEN "syn_d_keep" ELSE 0 END) AS DOUBLE) / CAST(SUM("dq") AS DOUBLE)
  END AS "DiSCO",
  CASE
    WHEN SUM("dq") = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(SUM(
      CASE
        WHEN "s_levels" = 1 AND "d_levels" = 1 AND "syn_d" = "dq"
        THEN "syn_d_keep"
        ELSE 0
      END
    ) AS DOUBLE) / CAST(SUM("dq") AS DOUBLE)
  END AS "DiSDiO",
  CAST(MAX(CASE WHEN "s_levels" = 1 THEN "syn_d_keep" ELSE 0 END) AS DOUBLE) AS "max_denom",
  COALESCE(
    AVG(
      CASE WHEN "s_levels" = 1 AND "syn_d_keep" > 0 THEN CAST("syn_d_keep" AS DOUBLE) END
    ),
    CAST('NaN' AS DOUBLE)
  ) AS "mean_denom"
FROM "__disco_qcells"
GROUP BY
  "j"
ORDER BY
  "j";
