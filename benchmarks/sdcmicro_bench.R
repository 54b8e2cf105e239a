# Times one sdcMicro 5.8.0 risk function on a data file and writes its summary numbers as JSON.
#   Rscript benchmarks/sdcmicro_bench.R FUNCTION DATA.csv|DATA.parquet OUT.json KEY1,KEY2,... [WEIGHT|-] \
#           [SENS1,SENS2,...] [--records OUT.csv]
# FUNCTION: measure_risk (uses WEIGHT), ldiversity (needs SENS...; l_recurs_c = 2), suda2 (DisFraction 0.01).
# CSV (data.table::fread): empty field = NA, integer keys read as integers, text columns as factors
# (sdcMicro uses their codes), as the oracle's runner.R does. Parquet: converted to a temporary CSV first
# (python3 + duckdb), untimed. WEIGHT "-" = none (to give SENS... without a weight).
# Only the sdcMicro call is timed (proc.time elapsed). Memory: r_heap_peak_mb = R's gc() "max used" during
# the call (R heap only, not C++ buffers; r_heap_base_mb was in use before it, packages and data);
# rss_peak_mb = the process's peak RSS (VmHWM), loading included.
# --records writes the per-record output: risk,fk,Fk (measure_risk), the l-diversity columns, or the SUDA
# contributions and scores. Install sdcMicro with benchmarks/install_sdcmicro.sh.
suppressMessages({library(sdcMicro); library(data.table); library(jsonlite)})
args <- commandArgs(TRUE)
records <- NULL
if (length(i <- which(args == "--records"))) { records <- args[i + 1]; args <- args[-c(i, i + 1)] }
if (length(args) < 4) stop("usage: FUNCTION DATA OUT.json KEYS [WEIGHT|-] [SENSITIVE] [--records OUT.csv]")
fn <- args[1]; path <- args[2]; out <- args[3]
split <- function(s) if (is.na(s) || s %in% c("", "-")) NULL else strsplit(s, ",", fixed = TRUE)[[1]]
keys <- split(args[4]); w <- split(args[5]); sens <- split(args[6])
stopifnot(fn %in% c("measure_risk", "ldiversity", "suda2"), length(w) <= 1)

if (grepl("\\.parquet$", path, ignore.case = TRUE)) {
  csv <- tempfile(fileext = ".csv")
  py <- sprintf("import duckdb; duckdb.sql(\"COPY (SELECT * FROM read_parquet('%s')) TO '%s' (HEADER)\")", path, csv)
  # without R's LD_LIBRARY_PATH, which can make a pyenv Python load Debian's libpython (and lose its packages)
  if (system2("env", c("-u", "LD_LIBRARY_PATH", Sys.getenv("PYTHON", "python3"), "-c", shQuote(py))) != 0)
    stop("could not convert ", path, " to CSV (needs python3 with duckdb; or set PYTHON)")
  path <- csv
}
d <- fread(path, na.strings = "", stringsAsFactors = TRUE, showProgress = FALSE, select = unique(c(keys, w, sens)))
setDF(d)  # a plain data.frame, as sdcMicro indexes it like one
for (k in keys) if (is.logical(d[[k]])) d[[k]] <- as.integer(d[[k]])  # an all-NA key
# suda2 on factor keys turns later keys' levels into NA (its own rbind); give it their codes, as runner.R does
if (fn == "suda2") for (k in keys) if (is.factor(d[[k]])) d[[k]] <- as.integer(d[[k]])

base_mb <- sum(gc(reset = TRUE)[, 2])  # "(Mb)" used now: packages + data
t0 <- proc.time()[["elapsed"]]
r <- switch(fn,
  measure_risk = measure_risk(d, keyVars = keys, w = w),
  ldiversity = ldiversity(d, keyVars = keys, ldiv_index = sens, l_recurs_c = 2),
  suda2 = suda2(d, variables = keys, DisFraction = 0.01))
seconds <- round(proc.time()[["elapsed"]] - t0, 3)
g <- gc()
heap_mb <- sum(g[, ncol(g)])  # last column: "max used" in Mb, Ncells + Vcells
hwm <- grep("^VmHWM", readLines("/proc/self/status"), value = TRUE)
rss_mb <- if (length(hwm)) as.numeric(gsub("[^0-9]", "", hwm)) / 1024 else NA

s <- function(x) sum(x, na.rm = TRUE)
if (fn == "measure_risk") {
  rec <- as.data.frame(r$Res)[, c("risk", "fk", "Fk")]
  res <- list(global_risk_ER = r$global_risk_ER, global_risk = r$global_risk,
              global_threshold = r$global_threshold, sum_fk = s(rec$fk), sum_Fk = s(rec$Fk), sum_risk = s(rec$risk))
} else if (fn == "ldiversity") {
  rec <- as.data.frame(unclass(r))
  res <- lapply(rec, function(x) list(sum = s(x), min = min(x, na.rm = TRUE)))
} else {
  rec <- data.frame(r$contributionPercent, suda_score = r$score, dis_suda_score = r$disScore)
  res <- list(sum_score = s(r$score), sum_disScore = s(r$disScore),
              attribute_contributions = as.list(setNames(r$attribute_contributions$contribution,
                                                         r$attribute_contributions$variable)))
}
if (!is.null(records)) fwrite(rec, records, na = "NA")
write_json(list(`function` = fn, rows = nrow(d), keys = I(keys), weight = w,
                sensitive = if (length(sens)) I(sens),
                sdcmicro = as.character(packageVersion("sdcMicro")), seconds = seconds,
                r_heap_base_mb = base_mb, r_heap_peak_mb = heap_mb, rss_peak_mb = rss_mb, results = res),
           out, auto_unbox = TRUE, digits = NA, na = "null", null = "null", pretty = TRUE)
cat(sprintf("%s: %d rows, %.3f s\n", fn, nrow(d), seconds))
