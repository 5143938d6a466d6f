import pytest

from oss_helpers import OssEmulator


@pytest.fixture()
def emu():
    with OssEmulator(with_mns=True) as e:
        yield e
