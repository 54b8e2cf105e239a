"""The original data's own disclosure risk, as sdcMicro measures it (k-anonymity, individual,
global and household risk, l-diversity, SUDA2). Empty for now: the place these measures go."""
