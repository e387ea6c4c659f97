"""The pipeline framework every paper stands on: stages and artifacts, config and registry, claims, provenance and the
code stamps that decide what reruns. It imports nothing else of neurips26."""
