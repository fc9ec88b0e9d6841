"""``debench view``: a static, self-contained HTML report of one run (``debench.view.render``)."""
