"""Class attributes replaced for the duration of a block (the tracing
guards and rewrites of torch.Tensor's methods), put back as they were:
restored where the class had its own, deleted where it inherited one."""
import contextlib
from typing import Iterator

_ABSENT = object()


@contextlib.contextmanager
def replaced(owner: type, **values) -> Iterator[None]:
    """owner.NAME = VALUE for each keyword meanwhile."""
    saved = {name: owner.__dict__.get(name, _ABSENT) for name in values}
    for name, value in values.items():
        setattr(owner, name, value)
    try:
        yield
    finally:
        for name, old in saved.items():
            if old is _ABSENT:
                delattr(owner, name)
            else:
                setattr(owner, name, old)
