"""The ground-truth table: physics (pymunk), a camera renderer (OpenCV) and scenario suites."""
