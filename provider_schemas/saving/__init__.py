"""Saving settings: the save plan, the all-or-nothing commit with its journal and cross-process lock,
activation and the memory settings, and moving secrets between stores."""
