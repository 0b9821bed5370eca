/*
Copyright 2026 The sidecar-kubelet Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package pictures draws the report's SVG pictures: a timeline of a pod's
// containers and events per panel (WriteTimeline), box plots of
// distributions (WriteBoxPlot) and line charts against the pod count
// (WriteLineChart), a way keeping its colour (WayColor) in every one.
//
// It is apart from the report so that the drawing (geometry, axes, the
// placing of labels) is kept from what the report says: report picks the
// figures and the titles, pictures only draws them.
package pictures
