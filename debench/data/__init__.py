"""Dataset adapters: one module per published format, registered in ``debench.data.base.ADAPTERS``."""
