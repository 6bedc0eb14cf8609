"""Stage 6: pure functions from the analysis to text, JSON, SARIF, DOT, Mermaid, HTML."""
