"""The evaluated design (IR): a frozen model, its walkers, issues and fingerprints."""
