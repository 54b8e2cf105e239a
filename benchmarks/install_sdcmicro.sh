#!/bin/bash
# Installs R (Debian packages) and sdcMicro 5.8.0, built from the CRAN source without its GUI/report
# dependencies (shiny, ggplot2, rmarkdown, ... which Debian lacks or which the risk functions never use).
# Needed by benchmarks/sdcmicro_bench.R. Idempotent: exits 0 at once when sdcMicro 5.8.0 already loads.
#   sudo bash benchmarks/install_sdcmicro.sh [SDCMICRO_SOURCE]
# SDCMICRO_SOURCE: a git clone (or bare repo) of the CRAN mirror cran/sdcMicro, or an unpacked source
# directory; default: git clone https://github.com/cran/sdcMicro at tag 5.8.0.
# Env: MAKEFLAGS (default -j1), WORK_DIR (default: a temporary directory, removed afterwards).
set -euo pipefail
VERSION=5.8.0
COMMIT=6bb2687594c931766af28824b5f5040b07ee91a3   # tag 5.8.0 of github.com/cran/sdcMicro

loads() { command -v Rscript >/dev/null && Rscript -e \
  "suppressMessages(library(sdcMicro)); stopifnot(packageVersion('sdcMicro') == '$VERSION')" >/dev/null 2>&1; }
if loads; then echo "sdcMicro $VERSION already installed"; exit 0; fi

export DEBIAN_FRONTEND=noninteractive
PKGS="r-base-core r-base-dev r-cran-rcpp r-cran-data.table r-cran-jsonlite r-cran-mass git ca-certificates"
apt-get install -y --no-install-recommends $PKGS || { apt-get update && apt-get install -y --no-install-recommends $PKGS; }

W=${WORK_DIR:-$(mktemp -d)}
[ -n "${WORK_DIR:-}" ] || trap 'rm -rf "$W"' EXIT
mkdir -p "$W" && rm -rf "$W/sdcMicro"
SRC=${1:-}
if [ -z "$SRC" ]; then
  git -c advice.detachedHead=false clone --quiet --depth 1 --branch "$VERSION" https://github.com/cran/sdcMicro "$W/sdcMicro"
  rm -rf "$W/sdcMicro/.git"
elif [ -f "$SRC/DESCRIPTION" ] && [ ! -d "$SRC/.git" ]; then
  cp -r "$SRC" "$W/sdcMicro"
else  # a git repository: take the 5.8.0 commit if it has it, else its HEAD
  REV=$(git -C "$SRC" rev-parse --verify -q "$COMMIT^{commit}" || echo HEAD)
  git -C "$SRC" archive --format=tar --prefix=sdcMicro/ "$REV" | tar x -C "$W"
fi
cd "$W/sdcMicro"
grep -q "^Version: $VERSION\$" DESCRIPTION || { echo "source is not sdcMicro $VERSION" >&2; exit 1; }

# Drop the GUI/report packages from NAMESPACE and DESCRIPTION (as the oracle's build_sdcmicro.sh does).
Rscript --vanilla - <<'RS'
drop <- c("carData", "cluster", "ggplot2", "knitr", "rhandsontable", "robustbase", "shiny", "xtable", "DT",
          "prettydoc", "rmarkdown")
ns <- readLines("NAMESPACE")
writeLines(ns[!grepl(sprintf("^(import|importFrom)\\((%s)[,)]", paste(drop, collapse = "|")), ns)], "NAMESPACE")
d <- paste(readLines("DESCRIPTION"), collapse = "\n")
d <- sub("(?s)Imports:.*?\nLicense:", paste0("Imports: utils, stats, graphics, methods, tools, Rcpp, data.table, ",
         "MASS\nLicense:"), d, perl = TRUE)
d <- gsub("\n(VignetteBuilder|Suggests):[^\n]*", "", d)
writeLines(d, "DESCRIPTION")
RS
rm -rf vignettes inst/doc
MAKEFLAGS=${MAKEFLAGS:--j1} R CMD INSTALL --no-docs --no-html --no-multiarch .
loads && echo "sdcMicro $VERSION installed"
