"""Do multimodal models imagine? Hidden states that track the puzzle state (seed abstract 19)."""
