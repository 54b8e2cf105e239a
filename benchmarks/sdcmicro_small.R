# sdcMicro 5.8.0 warm, with its data already in a data.frame: measure_risk and suda2, best of REPEAT.
#   Rscript benchmarks/sdcmicro_small.R DATA.csv OUT.json KEY1,KEY2,... WEIGHT REPEAT
# The CSV is read before any clock (data.table::fread, text keys as factors as runner.R reads
# them; suda2 gets the keys' integer codes, as sdcmicro_bench.R gives them). Each function runs once
# to warm up, then REPEAT times (proc.time elapsed); OUT.json has every time and the numbers
# bench_small.py checks against discosql's: global_risk_ER, sum(risk), sum(fk), sum(Fk), and
# sum(score), sum(disScore) of SUDA2 (DisFraction 0.01).
suppressMessages({library(sdcMicro); library(data.table); library(jsonlite)})
args <- commandArgs(TRUE)
if (length(args) != 5) stop("usage: DATA.csv OUT.json KEYS WEIGHT REPEAT")
keys <- strsplit(args[3], ",", fixed = TRUE)[[1]]; w <- args[4]; repeat_n <- as.integer(args[5])
d <- fread(args[1], na.strings = "", stringsAsFactors = TRUE, showProgress = FALSE, select = c(keys, w))
setDF(d)
codes <- d
for (k in keys) if (is.factor(codes[[k]])) codes[[k]] <- as.integer(codes[[k]])

timed <- function(f) {
  f()  # warm-up
  vapply(seq_len(repeat_n), function(i) {
    t0 <- proc.time()[["elapsed"]]; f(); proc.time()[["elapsed"]] - t0
  }, numeric(1))
}
risk <- function() measure_risk(d, keyVars = keys, w = w)
suda <- function() suda2(codes, variables = keys, DisFraction = 0.01)
r <- risk(); s <- suda()
out <- list(
  measure_risk = timed(risk),
  suda2 = timed(suda),
  global_risk_ER = r$global_risk_ER,
  sum_risk = sum(r$Res[, "risk"]),
  sum_fk = sum(r$Res[, "fk"]),
  sum_Fk = sum(r$Res[, "Fk"]),
  sum_score = sum(s$score),
  sum_dis_score = sum(s$disScore)
)
writeLines(toJSON(out, auto_unbox = TRUE, digits = NA), args[2])
