"""ResNet-32 for CIFAR (He et al. 2016, option A shortcuts as in Cao et al. 2019's LDAM code): 3 stages x 5 basic
blocks of 16 / 32 / 64 channels, global average pooling, then a linear map to the feature dimension (paper scale). No
ReLU after that map: the features are signed, as a fixed ETF head needs (issue #61)."""

from __future__ import annotations

import torch.nn.functional as F  # noqa: N812
from torch import nn


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.pad = cout - cin
        self.stride = stride

    def shortcut(self, x):
        if self.stride == 1 and self.pad == 0:
            return x
        x = x[:, :, :: self.stride, :: self.stride]
        return F.pad(x, (0, 0, 0, 0, self.pad // 2, self.pad - self.pad // 2))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(out)) + self.shortcut(x))


class ResNet32(nn.Module):
    def __init__(self, channels: int, dim: int, blocks: int = 5):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(channels, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        layers, cin = [], 16
        for cout, stride in ((16, 1), (32, 2), (64, 2)):
            for b in range(blocks):
                layers.append(BasicBlock(cin, cout, stride if b == 0 else 1))
                cin = cout
        self.layers = nn.Sequential(*layers)
        self.out = nn.Linear(64, dim)

    def forward(self, x):
        return self.out(self.layers(self.stem(x)).mean(dim=(2, 3)))


def resnet32(channels: int, dim: int) -> ResNet32:
    return ResNet32(channels, dim)
