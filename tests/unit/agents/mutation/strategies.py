"""The numbers the operator properties draw: finite reals, none too close to zero."""

from hypothesis import strategies as st

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False).filter(lambda x: abs(x) > 1e-6)
