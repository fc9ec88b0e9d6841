"""debench: how well do language models judge debates?"""

import os as _os

# litellm fetches a remote cost map at import unless told otherwise; debench must work offline.
_os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

__version__ = "0.1.0"
