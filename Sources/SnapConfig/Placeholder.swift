import SnapCore
