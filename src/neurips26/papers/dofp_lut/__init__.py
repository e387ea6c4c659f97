"""DoFP-LUT: lookup-table colour-polarization demosaicking (seed abstract 17)."""
