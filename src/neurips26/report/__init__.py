"""results/all: the offline index page, claims.csv and manifest.tsv."""
