"""Neural Function Modules (Lamb et al., AAAI 2021): every layer writes keys and values; on a
second pass each layer reads from any layer, deeper ones included, through sparse attention."""

from circuitlab.nfm.config import NFMConfig
from circuitlab.nfm.model import NFMNetwork

__all__ = ["NFMConfig", "NFMNetwork"]
