"""What compare decides, and how it is said: the model (model: every
run's values, the tests, the verdicts and the suite rows), the pieces
every format shares (parts), one renderer per format (as_text, as_md,
as_csv, as_json; the gate's junit and github are orbbench.gate's), and
render(), which picks one. Imported by scripts/compare, report and
orbbench suite; it imports no command."""
