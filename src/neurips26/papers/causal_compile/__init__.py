"""causal_compile: medical evidence compiled into executable estimands (seed abstract 18)."""
