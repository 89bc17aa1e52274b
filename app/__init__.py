"""circuitlab.app: the Dash app that browses circuit stores (``create_app``).

(On disk this is the top-level ``app/`` folder, mapped by pyproject's package-dir.)
"""

from circuitlab._lazy import lazy_exports

_EXPORTS = {"create_app": "circuitlab.app.factory"}
__all__ = ["create_app"]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
