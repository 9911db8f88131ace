"""What compare decides, and how it is said: the model (model: each
scenario's row, every kind's alike, the tests, the verdicts and the suite
rows; readings: how a kind's metrics are read off its runs), the JSON's
shape (shape), the pieces every format shares (parts), one renderer per
format (as_text, as_md, as_csv, as_json; the gate's junit and github are
orbbench.gate's), render(), which picks one, and sets (result sets by
their paths). Imported by scripts/compare, report and orbbench suite; it
imports no command."""
