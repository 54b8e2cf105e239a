"""The original data's own disclosure risk, as sdcMicro measures it: ``frequencies`` (the
coded records, key cells and fk/Fk with missing keys as wildcards), ``individual`` (``risk()``:
individual, global and household risk), ``ldiversity``, ``suda`` (``suda()``: SUDA2 special
uniques) and ``export`` (their scripts). Templates in ``sql_templates/risk/`` and ``suda/``."""
