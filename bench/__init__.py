"""Small, bounded benchmarks run by hand: each script stops by itself."""
