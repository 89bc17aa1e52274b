"""The page's layout, one module per panel of the NAC page (``search``, ``circuit``,
``details``, ``compare``, ``map``; each names the callbacks that fill it) and the pieces they
are built from (``parts``). Another model kind's body is its panel's (``circuitlab.app.panels``);
``circuitlab.app.page`` puts them together."""
