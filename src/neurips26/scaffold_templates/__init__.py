"""The text templates of `python -m neurips26 new-paper` (neurips26/scaffold.py): `$id`, `$ID` (upper case), `$title`,
`$seed_index` and `$date` are substituted (string.Template); each file's destination is in scaffold.TEMPLATES."""
