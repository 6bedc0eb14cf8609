"""minirl: a tiny online RL loop (sampler process -> queue -> trainer -> weights back)."""
