"""Protecting a synthesis: synthpop's ``replicated.uniques()`` and ``sdc()`` (bottom/top
coding, removal of replicated uniques and of disclosive cells), and ``sdc_to_sql``."""
