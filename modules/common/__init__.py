"""Support modules the lessons share: input checks, counting units, fixtures."""
