"""CaseBuilder: the prim trees, relationships, connections and composition arcs of one case."""

from __future__ import annotations

from . import pxrlib
from .authoring import Group, PrimAuthor
from .values import CHILD_NAMES, PRIM_TYPES, attr_name, gen_dict, gen_value


class CaseBuilder(PrimAuthor):
    """Authors the root layer (and optionally an external layer) of one case with the Sdf API."""

    # --- trees --------------------------------------------------------------------------------------

    def grow(self, parent, group: Group, depth: int, max_depth: int, budget: list[int], fanout: int) -> None:
        rng = self.rng
        if depth >= max_depth:
            return
        for _ in range(rng.randint(0, fanout)):
            if budget[0] <= 0:
                return
            budget[0] -= 1
            name = f"{rng.choice(CHILD_NAMES)}_{len(parent.nameChildren)}"  # unique among siblings
            type_name = rng.choice(PRIM_TYPES)
            if parent.typeName == "Material" and rng.random() < 0.7:
                type_name = "Shader"
            child = self.new_prim(parent, name, pxrlib.Sdf.SpecifierDef, type_name, group)
            self.decorate(child, group)
            self.grow(child, group, depth + 1, max_depth, budget, max(1, fanout - 1))

    def decorate(self, prim, group: Group) -> None:
        rng = self.rng
        self.schema_attrs(prim, group)
        self.add_random_attrs(prim, rng.choice((0, 0, 1, 1, 2, 3)), group)
        if rng.random() < 0.25:
            self.add_primvar(prim, group)
        if rng.random() < 0.2:
            prim.customData = gen_dict(rng)

    def wire(self, group: Group, extra_targets: list[str] = ()) -> None:
        """Relationships and connections, all targets inside the group (plus extra_targets)."""
        rng = self.rng
        prim_paths = group.all_prim_paths() + list(extra_targets)
        prop_paths = list(group.props)
        for prim in list(group.prims):
            t = prim.typeName
            if t in ("Mesh", "Cube", "Sphere") and rng.random() < 0.6:
                materials = [str(p.path) for p in group.prims if p.typeName == "Material"] or prim_paths
                rel = pxrlib.Sdf.RelationshipSpec(prim, "material:binding", False)
                rel.targetPathList.explicitItems = [pxrlib.Sdf.Path(rng.choice(materials))]
            if t == "Material":
                shaders = [str(p.path) for p in group.prims if p.typeName == "Shader"]
                if shaders and "outputs:surface" in prim.attributes:
                    out = prim.attributes["outputs:surface"]
                    out.connectionPathList.explicitItems = [pxrlib.Sdf.Path(rng.choice(shaders) + ".outputs:surface")]
            if t == "Shader" and rng.random() < 0.5:
                sources = [p for p in prop_paths if p.endswith(".outputs:rgb") or p.endswith(".outputs:surface")]
                if sources:
                    attr = self.add_attr(prim, "inputs:normal", "normal3f", group=None)
                    attr.connectionPathList.explicitItems = [pxrlib.Sdf.Path(rng.choice(sources))]
            if rng.random() < 0.2:
                rel = pxrlib.Sdf.RelationshipSpec(prim, f"rel{len(prim.relationships)}", rng.random() < 0.3)
                pool = prim_paths + prop_paths
                targets = [] if rng.random() < 0.1 else rng.sample(pool, min(len(pool), rng.randint(1, 3)))
                rel.targetPathList.explicitItems = [pxrlib.Sdf.Path(p) for p in targets]
            if prop_paths and rng.random() < 0.1:
                type_name = self.pick_type_name()
                attr = self.add_attr(prim, attr_name("inputs:", type_name, False, len(prim.attributes)), type_name,
                                     group=None)
                attr.connectionPathList.explicitItems = [
                    pxrlib.Sdf.Path(p) for p in rng.sample(prop_paths, min(len(prop_paths), rng.randint(1, 2)))]

    # --- the case -----------------------------------------------------------------------------------

    def build(self):
        rng = self.rng
        layer = self.layer
        root_md = layer.pseudoRoot
        if rng.random() < 0.8:
            root_md.SetInfo("upAxis", rng.choice(("Y", "Z")))
        if rng.random() < 0.8:
            root_md.SetInfo("metersPerUnit", rng.choice((1.0, 0.01, 0.001, 0.0254, 0.3048, 1e-5, 1234.5678)))

        # Prototypes: targets of internal references. Prototype k may reference prototype j > k.
        protos = []
        for k in range(rng.randint(1, 2)):
            group = Group(f"/Proto_{k}")
            spec = self.new_prim(layer, f"Proto_{k}", pxrlib.Sdf.SpecifierDef,
                                 rng.choice(("Xform", "Xform", "Scope", "")), group)
            self.decorate(spec, group)
            self.grow(spec, group, 1, 3, [rng.randint(1, 6)], 3)
            protos.append((spec, group))
        for k, (spec, group) in enumerate(protos[:-1]):
            if rng.random() < 0.4:
                inner = rng.choice(group.prims)
                inner.referenceList.prependedItems = [pxrlib.Sdf.Reference("", pxrlib.Sdf.Path(f"/Proto_{k + 1}"))]

        # Classes: targets of inherits.
        classes = []
        for k in range(rng.randint(0, 2)):
            group = Group(f"/_class_{k}")
            spec = self.new_prim(layer, f"_class_{k}", pxrlib.Sdf.SpecifierClass, rng.choice(("", "Xform")), group)
            self.add_random_attrs(spec, rng.randint(1, 3), group)
            if rng.random() < 0.5:
                child = self.new_prim(spec, "classChild", pxrlib.Sdf.SpecifierDef, rng.choice(("", "Scope", "Cube")),
                                      group)
                self.decorate(child, group)
            classes.append((spec, group))

        # External layer.
        ext_groups = []
        if rng.random() < 0.5:
            ext_groups = self.build_external()

        # The main tree.
        root_group = Group("/Root")
        root = self.new_prim(layer, "Root", pxrlib.Sdf.SpecifierDef, "Xform", root_group)
        self.decorate(root, root_group)
        if rng.random() < 0.5:
            root.customData = gen_dict(rng)
        zoo = self.new_prim(root, "zoo", pxrlib.Sdf.SpecifierDef, rng.choice(("Scope", "")), root_group)
        self.add_random_attrs(zoo, rng.randint(10, 20), root_group)
        if self.use_timecode:
            self.add_attr(zoo, "timeline:start", "timecode", group=root_group)
            self.add_attr(zoo, "timeline:marks", "timecode[]", group=root_group)
        budget = [rng.randint(6, 18)]
        while budget[0] > 0:  # keep growing until the whole budget is used
            self.grow(root, root_group, 1, 5, budget, 4)
        for spec, group in protos + classes:
            self.wire(group)
        self.wire(root_group, extra_targets=[str(s.path) for s, _ in protos])

        # Composition arcs, each on a different prim of the main tree (the tree has at least 6).
        candidates = [p for p in root_group.prims if p.name != "zoo"]
        rng.shuffle(candidates)
        for _ in range(rng.randint(1, 2)):  # internal references: at least one per case
            self.reference(candidates.pop(), protos, ext_groups, internal=True)
        if ext_groups:
            self.reference(candidates.pop(), protos, ext_groups, internal=False)
        if classes:
            for _ in range(rng.randint(1, 2)):
                cls_spec, _ = rng.choice(classes)
                candidates.pop().inheritPathList.prependedItems = [cls_spec.path]
        if rng.random() < 0.85:
            self.variants(candidates.pop())

        # Pure overs: nothing defines these prims.
        if rng.random() < 0.5:
            loose = self.new_prim(layer, "Loose", pxrlib.Sdf.SpecifierOver, "", None)
            self.add_random_attrs(loose, rng.randint(1, 2), None)
            if rng.random() < 0.5:
                self.new_prim(loose, "inner", pxrlib.Sdf.SpecifierOver, rng.choice(("", "Mesh")), None)
        if rng.random() < 0.4:
            host = rng.choice([p for p in root_group.prims if p.name != "zoo" and not p.instanceable])
            over = self.new_prim(host, "overOnly", pxrlib.Sdf.SpecifierOver, "", None)
            self.add_random_attrs(over, 1, None)

        names = [p.name for p in layer.rootPrims]
        r = rng.random()
        if r < 0.7:
            layer.defaultPrim = "Root"
        elif r < 0.85:
            layer.defaultPrim = rng.choice(names)
        return layer, self.ext

    def reference(self, prim, protos, ext_groups, internal: bool) -> None:
        rng = self.rng
        refs = []
        if internal:
            spec, group = rng.choice(protos)
            refs.append(pxrlib.Sdf.Reference("", spec.path))
            target_groups = [group]
        else:
            group = rng.choice(ext_groups)
            asset = "./" + self.ext_name
            # No prim path = the external layer's defaultPrim ("/Asset").
            refs.append(pxrlib.Sdf.Reference(asset, pxrlib.Sdf.Path() if group.root == "/Asset" and rng.random() < 0.7
                                      else pxrlib.Sdf.Path(group.root)))
            target_groups = [group]
            if rng.random() < 0.3:  # two references in one list: earlier is stronger
                spec, group2 = rng.choice(protos)
                refs.append(pxrlib.Sdf.Reference("", spec.path))
                target_groups.append(group2)
        prim.referenceList.prependedItems = refs
        has_local_children = bool(prim.nameChildren)
        if not has_local_children and rng.random() < 0.3:
            prim.instanceable = True
            return
        # Local opinions over the referenced namespace.
        target = target_groups[0]
        source_children = self.children_by_prim.get(target.root, [])
        if source_children and rng.random() < 0.6:
            child_name = rng.choice(source_children)
            if child_name not in prim.nameChildren:
                over = self.new_prim(prim, child_name, pxrlib.Sdf.SpecifierOver, "", None)
                type_name = rng.choice(("float", "int3", "string[]"))
                self.add_attr(over, attr_name("addedByOver:", type_name, False, 0), type_name, group=None)
                self.override_attr(over, target.root + "/" + child_name)
        if rng.random() < 0.5:
            self.override_attr(prim, target.root)

    def override_attr(self, prim, source_path: str) -> None:
        """Author a stronger opinion on one attribute that the referenced prim already has."""
        rng = self.rng
        existing = self.attrs_by_prim.get(source_path)
        if not existing:
            return
        name, type_name, uniform = rng.choice(existing)
        if name in prim.attributes:
            return
        variability = pxrlib.Sdf.VariabilityUniform if uniform else pxrlib.Sdf.VariabilityVarying
        attr = pxrlib.Sdf.AttributeSpec(prim, name, pxrlib.Sdf.ValueTypeNames.Find(type_name), variability, False)
        r = rng.random()
        if r < 0.2:
            attr.default = pxrlib.Sdf.ValueBlock()
        elif r < 0.35 and not uniform:
            self.add_time_samples(attr, type_name)
        else:
            attr.default = gen_value(rng, type_name)

    def variants(self, prim) -> None:
        rng = self.rng
        for set_name in rng.sample(("look", "lod", "shadingVariant"), rng.choice((1, 1, 2))):
            vset = pxrlib.Sdf.VariantSetSpec(prim, set_name)
            names = rng.sample(("red", "green", "blue", "high", "low", "none"), rng.randint(2, 3))
            for variant_name in names:
                variant = pxrlib.Sdf.VariantSpec(vset, variant_name)
                vprim = variant.primSpec
                self.add_random_attrs(vprim, rng.randint(1, 2), None)
                if rng.random() < 0.5:
                    child = pxrlib.Sdf.PrimSpec(vprim, f"{set_name}_{variant_name}_child", pxrlib.Sdf.SpecifierDef,
                                         rng.choice(("Cube", "Scope", "")))
                    self.add_random_attrs(child, 1, None)
            prim.variantSetNameList.prependedItems = list(prim.variantSetNameList.prependedItems) + [set_name]
            prim.variantSelections[set_name] = rng.choice(names)

    def build_external(self) -> list[Group]:
        rng = self.rng
        ext = pxrlib.Sdf.Layer.CreateAnonymous(self.ext_name)
        self.ext = ext
        ext.pseudoRoot.SetInfo("upAxis", rng.choice(("Y", "Z")))
        ext.pseudoRoot.SetInfo("metersPerUnit", rng.choice((1.0, 0.01)))
        ext.defaultPrim = "Asset"
        groups = []
        for root_name in ("Asset", "Alt"):
            group = Group(f"/{root_name}")
            spec = self.new_prim(ext, root_name, pxrlib.Sdf.SpecifierDef, rng.choice(("Xform", "Mesh", "")), group)
            spec.customData = {"Category": rng.choice(("Wall", "Door", "Chair")),
                               "UUID": "%08X-0000-4000-8000-%012X" % (rng.getrandbits(32), rng.getrandbits(48))}
            self.decorate(spec, group)
            self.grow(spec, group, 1, 3, [rng.randint(1, 6) if root_name == "Asset" else 2], 3)
            groups.append(group)
        for group in groups:
            self.wire(group)
        # An internal reference inside the external layer (resolved within that layer).
        if rng.random() < 0.4 and len(groups[0].prims) > 1:
            inner = rng.choice(groups[0].prims[1:])
            inner.referenceList.prependedItems = [pxrlib.Sdf.Reference("", pxrlib.Sdf.Path("/Alt"))]
        return groups
