SELECT
  "j" AS "synthesis",
  CASE
    WHEN SUM("dq") = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(SUM(CASE WHEN "dq_keep" = 1 THEN 1 ELSE 0 END) AS DOUBLE) / CAST(SUM("dq") AS DOUBLE)
  END AS "UiO",
  CASE
    WHEN SUM("sq") = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(SUM(CASE WHEN "sq_keep" = 1 THEN 1 ELSE 0 END) AS DOUBLE) / CAST(SUM("sq") AS DOUBLE)
  END AS "UiS",
  CASE
    WHEN SUM("dq") = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(SUM(CASE WHEN "dq_keep" = 1 AND "sq" > 0 THEN 1 ELSE 0 END) AS DOUBLE) / CAST(SUM("dq") AS DOUBLE)
  END AS "UiOiS",
  CASE
    WHEN SUM("dq") = 0
    THEN CAST('NaN' AS DOUBLE)
    ELSE 100 * CAST(SUM(CASE WHEN "dq_keep" = 1 AND "sq_keep" = 1 THEN 1 ELSE 0 END) AS DOUBLE) / CAST(SUM("dq") AS DOUBLE)
  END AS "repU"
FROM "__disco_qcells"
GROUP BY
  "j"
ORDER BY
  "j";
