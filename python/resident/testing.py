"""numpy.testing's checks, computed where the data is (only the verdict comes back)."""
from . import _resident as _r


def assert_allclose(actual, desired, rtol=1e-07, atol=0, err_msg=""):
    """Raise AssertionError (resident.NotCloseError) with the mismatch count, the largest
    differences and the worst element unless actual and desired are close."""
    try:
        _r._assert_allclose(actual, desired, rtol, atol)
    except AssertionError as e:
        if err_msg:
            raise type(e)(f"{err_msg}\n{e}") from None
        raise


def assert_array_equal(actual, desired):
    """Raise AssertionError unless the shapes and every element are equal."""
    if not _r.array_equal(actual, desired):
        raise AssertionError("arrays are not equal")
