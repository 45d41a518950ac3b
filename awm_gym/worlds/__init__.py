"""World sets on disk: reading the AWM files, building template databases, the clock."""
