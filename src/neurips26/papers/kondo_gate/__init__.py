"""Kondo gate for the Delightful Policy Gradient: skip backward passes whose delight does not pay (seed abstract 8)."""
