"""The evaluated design (IR): a frozen model, its walkers, issues and fingerprints.

The IR imports only the contracts (``tooldesign.contract``): every stage after evaluation reads
it, and it depends on none of them.
"""
