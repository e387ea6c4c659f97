"""Code that two papers or more use: registry, config, claims, artifacts, plotting, seeding, devices, data."""
